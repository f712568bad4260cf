/**
 * Free slots on a calendar, pure (no I/O, no clock: `at` is passed in). One function backs
 * POST /v1/calendar/availability, the handoff booking availability and the runtime's
 * check_calendar tool, so the three can never disagree.
 *
 *   provider free/busy  →  working hours (the connection's, in the connection's zone)
 *   →  a 15-minute grid  →  not in the past (a slot starts at or after `at`)
 *
 * The requested dates are calendar days in the requested zone (default: the connection's).
 * Wall times become instants through the platform's Intl data (local-time.ts), so DST needs
 * no special case: a working window on a 23- or 25-hour day is simply shorter or longer in
 * UTC terms only when it straddles the change. A wall time that does not exist (the spring
 * gap) is read as the first instant after the gap; one that exists twice (the autumn
 * overlap) as its first occurrence.
 *
 * The grid is aligned to quarter hours of the wall clock: every IANA zone in use today has
 * an offset that is a whole number of quarter hours, so UTC quarter hours are local ones.
 */
import { wallToInstant as zoneWallToInstant } from '../../time-zone.js';
import { WEEKDAYS, type Weekday } from '../answering/model.js';

const SLOT_STEP_MINUTES = 15;
export const MAX_RANGE_DAYS = 31;
export const MIN_DURATION_MINUTES = 5;
export const MAX_DURATION_MINUTES = 240;

/** HH:MM-HH:MM windows per weekday, in the connection's zone. */
export type WorkingHours = Record<Weekday, { start: string; end: string }[]>;

export const DEFAULT_WORKING_HOURS: WorkingHours = {
  monday: [{ start: '09:00', end: '17:00' }],
  tuesday: [{ start: '09:00', end: '17:00' }],
  wednesday: [{ start: '09:00', end: '17:00' }],
  thursday: [{ start: '09:00', end: '17:00' }],
  friday: [{ start: '09:00', end: '17:00' }],
  saturday: [],
  sunday: [],
};

export interface Interval {
  /** Epoch milliseconds, end exclusive. */
  start: number;
  end: number;
}

export interface AvailabilityInput {
  startDate: string;
  endDate: string;
  durationMinutes: number;
  /** Zone of the requested dates (IANA). */
  timezone: string;
  /** Zone of the working hours (the connection's). */
  workingTimezone: string;
  workingHours: WorkingHours;
  /** The provider's busy blocks, any order, may overlap. */
  busy: readonly Interval[];
  /** The instant of the question: no slot starts before it. */
  at: Date;
}

export interface Slot {
  starts_at: string;
  ends_at: string;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Minutes since midnight of an HH:MM (24:00 allowed as the end of the day). */
function clockMinutes(hhmm: string): number {
  const m = /^([01]\d|2[0-4]):([0-5]\d)$/.exec(hhmm);
  if (!m) throw new RangeError(`not an HH:MM time: ${hhmm}`);
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  if (minutes > 24 * 60) throw new RangeError(`not an HH:MM time: ${hhmm}`);
  return minutes;
}

/** Epoch ms of a YYYY-MM-DD's midnight as if it were UTC (date arithmetic only). */
export function dateMs(date: string): number {
  const m = DATE.exec(date);
  if (!m) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (new Date(ms).toISOString().slice(0, 10) !== date) throw new RangeError(`not a calendar date: ${date}`);
  return ms;
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Days from start to end inclusive (1 when equal); negative when end is before start. */
export const rangeDays = (startDate: string, endDate: string): number => Math.round((dateMs(endDate) - dateMs(startDate)) / DAY_MS) + 1;

/**
 * The instant a wall time names in `zone`: the first occurrence in an overlap, the first
 * instant after the gap for a time the clocks skip (shared/time-zone.ts).
 */
export const wallToInstant = (date: string, minutes: number, zone: string): number => zoneWallToInstant(dateMs(date), minutes, zone);

/** Merge busy blocks into sorted, disjoint intervals. */
export function mergeIntervals(intervals: readonly Interval[]): Interval[] {
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

/** The working windows (instants) of every working-zone day that can touch [from, to). */
function workingWindows(from: number, to: number, zone: string, hours: WorkingHours): Interval[] {
  const out: Interval[] = [];
  // Working-zone dates from a day before to a day after the range cover every offset (±14 h).
  for (let d = dateMs(dateOf(from)) - DAY_MS; d <= to + DAY_MS; d += DAY_MS) {
    const date = dateOf(d);
    const weekday = WEEKDAYS[(new Date(d).getUTCDay() + 6) % 7]!;
    for (const w of hours[weekday] ?? []) {
      const start = wallToInstant(date, clockMinutes(w.start), zone);
      const end = clockMinutes(w.end) >= 24 * 60 ? wallToInstant(dateOf(d + DAY_MS), 0, zone) : wallToInstant(date, clockMinutes(w.end), zone);
      if (end > start && end > from && start < to) out.push({ start, end });
    }
  }
  return mergeIntervals(out);
}

/**
 * Every free slot of `durationMinutes` starting on the 15-minute grid, inside one working
 * window, overlapping no busy block, starting at or after `at`, and starting on one of the
 * requested dates (in `timezone`). Sorted by start.
 */
export function freeSlots(input: AvailabilityInput): Slot[] {
  const days = rangeDays(input.startDate, input.endDate);
  if (days < 1) throw new RangeError('end_date is before start_date');
  if (days > MAX_RANGE_DAYS) throw new RangeError(`at most ${MAX_RANGE_DAYS} days`);
  const from = wallToInstant(input.startDate, 0, input.timezone);
  const to = wallToInstant(dateOf(dateMs(input.endDate) + DAY_MS), 0, input.timezone);
  const duration = input.durationMinutes * MINUTE_MS;
  const step = SLOT_STEP_MINUTES * MINUTE_MS;
  const busy = mergeIntervals(input.busy);
  const notBefore = Math.max(from, input.at.getTime());

  const slots: Slot[] = [];
  let b = 0;
  for (const window of workingWindows(from, to, input.workingTimezone, input.workingHours)) {
    let start = Math.ceil(Math.max(window.start, notBefore) / step) * step;
    while (start < to && start + duration <= window.end) {
      const end = start + duration;
      while (b < busy.length && busy[b]!.end <= start) b++;
      const clash = busy.slice(b).find((x) => x.start < end && x.end > start);
      if (clash) {
        // Jump to the first grid point at or after the busy block's end.
        start = Math.ceil(clash.end / step) * step;
        continue;
      }
      slots.push({ starts_at: new Date(start).toISOString(), ends_at: new Date(end).toISOString() });
      start += step;
    }
  }
  return slots;
}
