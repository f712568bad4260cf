/**
 * An answering policy's view of wall-clock time in its zone (weekday names as the policy
 * spells them, HH:MM), read from the one time-zone module (shared/time-zone.ts).
 */
import { hhmm, localClock } from '../../time-zone.js';
import { WEEKDAYS, type Weekday } from './model.js';

export { isIanaZone } from '../../time-zone.js';

/** localClock's 0 = Sunday … 6 = Saturday, as the policy's names. */
const BY_INDEX: readonly Weekday[] = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export interface LocalTime {
  /** YYYY-MM-DD in the zone. */
  date: string;
  weekday: Weekday;
  /** HH:MM, 24-hour. */
  time: string;
  /** Minutes since local midnight. */
  minutes: number;
}

export function localTime(at: Date, zone: string): LocalTime {
  const clock = localClock(zone, at.getTime());
  const weekday = BY_INDEX[clock.weekday]!;
  if (!WEEKDAYS.includes(weekday)) throw new Error(`unexpected weekday: ${clock.weekday}`);
  return { date: new Date(clock.wallMs).toISOString().slice(0, 10), weekday, time: hhmm(clock.minute), minutes: clock.minute };
}
