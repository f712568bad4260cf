/**
 * Which step list answers a call at instant `at` (the contract "Answering policy"): a
 * holiday (the local date is in holiday_dates) is closed; an absent or empty
 * business_hours is open at every hour; otherwise the local time must fall in one of that
 * weekday's windows (start included, end excluded), and a weekday not named is closed.
 */
import { type LocalTime, localTime } from './local-time.js';
import { type PolicyDocument, type Window, windowMinutes } from './model.js';

export type StepListName = 'open' | 'closed';
type ScheduleReason = 'holiday' | 'always_open' | 'within_hours' | 'outside_hours';

export interface ScheduleDecision {
  list: StepListName;
  reason: ScheduleReason;
  /** The wall-clock time the decision was made on, in the policy's zone. */
  local: LocalTime;
  /** The window that made it open, when one did. */
  window: Window | null;
}

export function scheduleAt(policy: Pick<PolicyDocument, 'timezone' | 'business_hours' | 'holiday_dates'>, at: Date): ScheduleDecision {
  const local = localTime(at, policy.timezone);
  const closed = (reason: ScheduleReason): ScheduleDecision => ({ list: 'closed', reason, local, window: null });
  if (policy.holiday_dates?.includes(local.date)) return closed('holiday');
  const hours = policy.business_hours ?? {};
  if (Object.keys(hours).length === 0) return { list: 'open', reason: 'always_open', local, window: null };
  const window = (hours[local.weekday] ?? []).find((w) => {
    const m = windowMinutes(w);
    return local.minutes >= m.start && local.minutes < m.end;
  });
  return window ? { list: 'open', reason: 'within_hours', local, window } : closed('outside_hours');
}
