/** Every defer rule at one instant, in the rule table's order (docs/decisions/calls-and-compliance.md). Pure in (context, instant). */
import { callingWindowReasons, quietHoursReasons } from './quiet-hours.js';
import { frequencyCapReasons, stateWindowReasons, sundayBanReasons } from './state-rules.js';
import { clocksAt, type TimeContext } from './time-context.js';
import type { ComplianceReason } from './types.js';

export function deferReasonsAt(ctx: TimeContext, instantMs: number): ComplianceReason[] {
  const clocks = clocksAt(ctx, instantMs);
  return [
    ...quietHoursReasons(clocks),
    ...stateWindowReasons(ctx, clocks),
    ...sundayBanReasons(ctx, clocks),
    ...frequencyCapReasons(ctx, instantMs),
    ...callingWindowReasons(ctx, clocks),
  ];
}
