/**
 * Every defer rule at one instant, in the rule table's order (docs/decisions/calls-and-compliance.md),
 * and the clock rules among them (the state rules are in state-rules.ts). Pure in (context, instant).
 */
import { hhmm, WEEKDAYS } from '../../time-zone.js';
import { LEGAL_WINDOW, minutesOf } from '../calling-window.js';
import { frequencyCapReasons, stateWindowReasons, sundayBanReasons } from './state-rules.js';
import { clocksAt, type TimeContext, within, type ZoneClock } from './time-context.js';
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

/**
 * The clock rules: the legal calling hours (08:00–21:00 local, every purpose) and the profile's own
 * calling window, judged in every zone the callee may be in.
 */
const LEGAL_START = minutesOf(LEGAL_WINDOW.start);
const LEGAL_END = minutesOf(LEGAL_WINDOW.end);

function quietHoursReasons(clocks: readonly ZoneClock[]): ComplianceReason[] {
  return clocks
    .filter((c) => !within(c.minute, LEGAL_START, LEGAL_END))
    .map((c) => ({
      code: 'quiet_hours' as const,
      zone: c.zone,
      local_time: hhmm(c.minute),
      weekday: WEEKDAYS[c.weekday]!,
      window: { ...LEGAL_WINDOW },
      message: `It is ${hhmm(c.minute)} in ${c.zone}, outside the legal calling hours ${LEGAL_WINDOW.start}–${LEGAL_WINDOW.end}: the call waits until next_permitted_at`,
    }));
}

function callingWindowReasons(ctx: TimeContext, clocks: readonly ZoneClock[]): ComplianceReason[] {
  const w = ctx.profileWindow;
  if (!w) return [];
  const start = minutesOf(w.start);
  const end = minutesOf(w.end);
  return clocks
    .filter((c) => !within(c.minute, start, end))
    .map((c) => ({
      code: 'calling_window' as const,
      zone: c.zone,
      local_time: hhmm(c.minute),
      weekday: WEEKDAYS[c.weekday]!,
      window: { start: w.start, end: w.end },
      message: `It is ${hhmm(c.minute)} in ${c.zone}, outside the compliance profile's calling window ${w.start}–${w.end}: the call waits until next_permitted_at (or widen the profile's window)`,
    }));
}
