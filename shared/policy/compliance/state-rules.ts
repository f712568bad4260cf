/**
 * State telemarketing rules for marketing calls: stricter calling hours, Sunday bans and
 * a per-subject frequency cap. Each applies when the state is any of the callee's states,
 * and its hours are judged in every zone the callee may be in.
 */

import { hhmm, WEEKDAYS } from '../../time-zone.js';
import type { CallingWindow } from '../calling-window.js';
import { minutesOf } from '../calling-window.js';
import { type TimeContext, within, type ZoneClock } from './time-context.js';
import type { ComplianceReason } from './types.js';

const SUNDAY = 0;
const W = (start: string, end: string): CallingWindow => ({ start, end });

/** The state's window on a given local weekday. */
export const STATE_WINDOWS: Readonly<Record<string, (weekday: number) => CallingWindow>> = {
  'US-FL': () => W('08:00', '20:00'),
  'US-OK': () => W('08:00', '20:00'),
  'US-MD': () => W('08:00', '20:00'),
  'US-WA': () => W('08:00', '20:00'),
  'US-CT': () => W('09:00', '20:00'),
  'US-TX': (weekday) => (weekday === SUNDAY ? W('12:00', '21:00') : W('09:00', '21:00')),
};

const SUNDAY_BAN_STATES: ReadonlySet<string> = new Set(['US-AL', 'US-LA', 'US-MS']);

const FREQUENCY_CAP_STATES: ReadonlySet<string> = new Set(['US-FL', 'US-OK', 'US-MD']);
export const FREQUENCY_CAP = { calls: 3, periodMs: 24 * 3_600_000 } as const;

export function stateWindowReasons(ctx: TimeContext, clocks: readonly ZoneClock[]): ComplianceReason[] {
  if (ctx.purpose !== 'marketing') return [];
  const reasons: ComplianceReason[] = [];
  for (const state of ctx.states) {
    const windowOn = STATE_WINDOWS[state];
    if (!windowOn) continue;
    for (const c of clocks) {
      const w = windowOn(c.weekday);
      if (within(c.minute, minutesOf(w.start), minutesOf(w.end))) continue;
      reasons.push({
        code: 'state_quiet_hours',
        state,
        zone: c.zone,
        local_time: hhmm(c.minute),
        weekday: WEEKDAYS[c.weekday]!,
        window: w,
        message: `${state} allows marketing calls ${w.start}–${w.end} on ${WEEKDAYS[c.weekday]}; it is ${hhmm(c.minute)} in ${c.zone}: the call waits until next_permitted_at`,
      });
    }
  }
  return reasons;
}

export function sundayBanReasons(ctx: TimeContext, clocks: readonly ZoneClock[]): ComplianceReason[] {
  if (ctx.purpose !== 'marketing') return [];
  const sundays = clocks.filter((c) => c.weekday === SUNDAY);
  return ctx.states
    .filter((s) => SUNDAY_BAN_STATES.has(s))
    .flatMap((state) =>
      sundays.map((c) => ({
        code: 'state_sunday_ban' as const,
        state,
        zone: c.zone,
        local_time: hhmm(c.minute),
        weekday: WEEKDAYS[SUNDAY],
        message: `${state} forbids marketing calls on Sunday, and it is Sunday in ${c.zone}: the call waits until next_permitted_at`,
      })),
    );
}

/**
 * Calls on the same subject placed in the 24 h before the instant (placed_at in
 * (t − 24 h, t]); at the cap, the rule holds until enough of them are 24 h old.
 */
export function frequencyCapReasons(ctx: TimeContext, atMs: number): ComplianceReason[] {
  if (ctx.purpose !== 'marketing') return [];
  const capped = ctx.states.filter((s) => FREQUENCY_CAP_STATES.has(s));
  if (capped.length === 0) return [];
  const recent = ctx.sameSubjectAttempts.filter((t) => t > atMs - FREQUENCY_CAP.periodMs && t <= atMs);
  if (recent.length < FREQUENCY_CAP.calls) return [];
  // Below the cap again once all but (cap − 1) of them have aged out.
  const until = new Date(recent[recent.length - FREQUENCY_CAP.calls]! + FREQUENCY_CAP.periodMs).toISOString();
  return capped.map((state) => ({
    code: 'state_frequency_cap' as const,
    state,
    subject: ctx.subject!,
    attempts: recent.length,
    until,
    message: `${state} allows at most ${FREQUENCY_CAP.calls} marketing calls on "${ctx.subject}" to a number in 24 h and ${recent.length} were placed: the call waits until ${until}`,
  }));
}
