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
import { RecentlyUsed } from '../recently-used.js';
import { activeCalendarId, type ConnectionRecord, guardedCalendar, sandboxEvents } from '../repositories/integration-connections.js';
import type { CalendarProvider } from '../schemas/integrations.js';
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

/** A sandbox calendar's events read over [from, to) before the question's zone was known (`connectedCalendar`). */
interface EventsRead {
  connectionId: string;
  from: number;
  to: number;
  events: Promise<Interval[]>;
}

export async function busyBlocks(c: ConnectionRecord, from: number, to: number, read?: EventsRead): Promise<Interval[]> {
  if (c.status === 'error') throw reauthorizationRequired();
  if (c.provider === 'sandbox_calendar') {
    const covered = read && read.connectionId === c.id && read.from <= from && read.to >= to;
    // The wider read, cut to [from, to) as sandboxEvents cuts its own.
    const events = covered ? (await read.events).filter((e) => e.end > from && e.start < to) : await sandboxEvents(c.tenant_id, c.id, from, to);
    return [...sandboxLunches(c.timezone, from, to), ...events];
  }
  return googleFreeBusy(c, from, to);
}

export async function calendarAvailability(
  c: ConnectionRecord,
  q: AvailabilityQuestion,
  at: Date,
  read?: EventsRead,
): Promise<{ connection_id: string; timezone: string; slots: Slot[] }> {
  const timezone = q.timezone ?? c.timezone;
  const { from, to } = dateRange(q, timezone);
  const busy = await busyBlocks(c, from, to, read);
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

/**
 * Per tenant, the calendar connection this instance last found connected and its provider
 * (fixed for a connection's id): which items to read first, never what they hold. A connection
 * holds the tenant's guard exactly while it is active or in error (connecting and revoking
 * write both in one transaction), so its own record, read consistently, answers what the guard
 * would; a guess whose connection is no longer connected costs the guard read it replaced.
 */
const lastConnected = new RecentlyUsed<string, { id: string; provider: CalendarProvider }>(1024);

/** The tenant's connected calendar, with its sandbox events for the question when it had one (started with the connection's read). */
export interface ConnectedCalendar {
  connection: ConnectionRecord;
  read?: EventsRead;
}

/** Zones are UTC−12…UTC+14: the requested dates cover, in any zone, at most this range. */
function anyZoneRange(q: Pick<AvailabilityQuestion, 'start_date' | 'end_date'>): { from: number; to: number } {
  return { from: dateMs(q.start_date) - DAY_MS, to: dateMs(q.end_date) + 2 * DAY_MS };
}

async function readConnected(tenantId: string, id: string, provider: CalendarProvider | undefined, q: AvailabilityQuestion | undefined) {
  // The events are read beside the connection, over a range any zone's dates fit (its zone is in the connection).
  const range = q && provider !== 'google_calendar' ? anyZoneRange(q) : undefined;
  const read = range && { connectionId: id, ...range, events: sandboxEvents(tenantId, id, range.from, range.to) };
  read?.events.catch(() => {}); // awaited only for a sandbox calendar; a failure surfaces there
  const connection = await guardedCalendar(tenantId, id);
  if (!connection) return undefined;
  lastConnected.set(tenantId, { id, provider: connection.provider });
  return { connection, ...(read && connection.provider === 'sandbox_calendar' ? { read } : {}) };
}

/**
 * The tenant's connected calendar (what `activeCalendar` answers), read in one round trip when
 * this instance knows which connection it is, and with the sandbox events `q` needs when given
 * (a question from an unchecked body only decides what is read: busyBlocks uses the read only
 * when it covers the checked question's range). Starts reading at once: a route may start it
 * beside its credential's check.
 */
export async function connectedCalendar(tenantId: string, q?: AvailabilityQuestion): Promise<ConnectedCalendar | undefined> {
  const known = lastConnected.get(tenantId);
  const guessed = known && (await readConnected(tenantId, known.id, known.provider, q));
  if (guessed) return guessed;
  const id = await activeCalendarId(tenantId);
  if (id === undefined) lastConnected.delete(tenantId);
  return id === undefined ? undefined : readConnected(tenantId, id, undefined, q);
}
