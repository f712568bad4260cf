/**
 * The calendar behind a connection: its busy blocks from the provider, then the one pure
 * availability function. Used by POST /v1/calendar/availability, the handoff booking
 * availability and the runtime's check_calendar tool.
 *
 * Providers: `sandbox_calendar` (events booked through this API, stored under the
 * connection, plus a standing 12:00–13:00 lunch block each day in the connection's zone, so
 * a sandbox calendar shows a busy block out of the box) and `google_calendar` (the Google
 * adapter's free/busy, shared/calendar/google.ts).
 */

import { DomainError } from '../errors.js';
import { dateMs, freeSlots, type Interval, type Slot, wallToInstant } from '../policy/calendar/availability.js';
import { type ConnectionRecord, sandboxEvents } from '../repositories/integration-connections.js';
import { googleFreeBusy } from './google.js';

const DAY_MS = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const SANDBOX_LUNCH = { start: 12 * 60, end: 13 * 60 };

export interface AvailabilityQuestion {
  start_date: string;
  end_date: string;
  duration_minutes: number;
  timezone?: string;
}

/** The instants [from, to) the requested dates cover in `zone`. */
function dateRange(q: AvailabilityQuestion, zone: string): { from: number; to: number } {
  return { from: wallToInstant(q.start_date, 0, zone), to: wallToInstant(dateOf(dateMs(q.end_date) + DAY_MS), 0, zone) };
}

function sandboxLunches(zone: string, from: number, to: number): Interval[] {
  const out: Interval[] = [];
  for (let d = dateMs(dateOf(from)) - DAY_MS; d <= to + DAY_MS; d += DAY_MS)
    out.push({ start: wallToInstant(dateOf(d), SANDBOX_LUNCH.start, zone), end: wallToInstant(dateOf(d), SANDBOX_LUNCH.end, zone) });
  return out;
}

/** Every use of a calendar in `error` (its provider refused our refresh) — availability, bookings, check_calendar — answers this, the same as the refusal itself did. */
const reauthorizationRequired = () =>
  new DomainError(
    'conflict',
    'calendar_reauthorization_required',
    'The calendar provider refused to refresh this connection; disconnect it (DELETE) and connect it again',
  );

export async function busyBlocks(c: ConnectionRecord, from: number, to: number): Promise<Interval[]> {
  if (c.status === 'error') throw reauthorizationRequired();
  if (c.provider === 'sandbox_calendar') return [...sandboxLunches(c.timezone, from, to), ...(await sandboxEvents(c.tenant_id, c.id, from, to))];
  return googleFreeBusy(c, from, to);
}

export async function calendarAvailability(
  c: ConnectionRecord,
  q: AvailabilityQuestion,
  at: Date,
): Promise<{ connection_id: string; timezone: string; slots: Slot[] }> {
  const timezone = q.timezone ?? c.timezone;
  const { from, to } = dateRange(q, timezone);
  const busy = await busyBlocks(c, from, to);
  const slots = freeSlots({
    startDate: q.start_date,
    endDate: q.end_date,
    durationMinutes: q.duration_minutes,
    timezone,
    workingTimezone: c.timezone,
    workingHours: c.working_hours,
    busy,
    at,
  });
  return { connection_id: c.id, timezone, slots };
}
