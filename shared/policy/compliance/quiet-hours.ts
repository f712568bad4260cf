/**
 * The legal calling hours (08:00–21:00 local, every purpose) and the profile's own
 * calling window, judged in every zone the callee may be in.
 */

import { hhmm, WEEKDAYS } from '../../time-zone.js';
import { LEGAL_WINDOW, minutesOf } from '../calling-window.js';
import { type TimeContext, within, type ZoneClock } from './time-context.js';
import type { ComplianceReason } from './types.js';

const LEGAL_START = minutesOf(LEGAL_WINDOW.start);
const LEGAL_END = minutesOf(LEGAL_WINDOW.end);

export function quietHoursReasons(clocks: readonly ZoneClock[]): ComplianceReason[] {
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

export function callingWindowReasons(ctx: TimeContext, clocks: readonly ZoneClock[]): ComplianceReason[] {
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
