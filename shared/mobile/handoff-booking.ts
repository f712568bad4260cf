/**
 * Handoff availability and booking: slots from the one availability function, each with an
 * opaque signed id bound to the tenant + handoff, expiring SLOT_TTL_MS after it was offered;
 * booking checks the id, the handoff (confirmed), that the slot is still free; for Google it
 * then inserts the event FIRST, with an id derived from the handoff and the slot (a retry
 * inserts nothing twice: Google's 409 "already exists" is our own event), and only then
 * commits (repositories/handoffs.ts) — so a Google failure leaves the handoff confirmed and
 * a retry books it properly, never `booked` without its event.
 */
import { createHash } from 'node:crypto';
import { type AvailabilityQuestion, busyBlocks, calendarAvailability } from '../calendar/calendar-service.js';
import { googleInsertEvent } from '../calendar/google.js';
import { SLOT_TTL_MS, signSlot, verifySlot } from '../calendar/slot-token.js';
import { now } from '../clock.js';
import { DomainError, invalid } from '../errors.js';
import { bookHandoff, type Handoff } from '../repositories/handoffs.js';
import { activeCalendar, getConnectionRecord } from '../repositories/integration-connections.js';
import { appSecrets } from '../secrets.js';

export const presentHandoff = (h: Handoff) => ({
  id: h.id,
  call_id: h.call_id,
  kind: h.kind,
  status: h.status,
  confirmed_at: h.confirmed_at,
  booking: h.booking
    ? { connection_id: h.booking.connection_id, starts_at: h.booking.starts_at, ends_at: h.booking.ends_at, booked_at: h.booking.booked_at }
    : null,
  created_at: h.created_at,
  updated_at: h.updated_at,
});

const notConfirmed = (h: Handoff) =>
  new DomainError('conflict', 'handoff_not_confirmed', 'The carrier has not confirmed this call yet: its handoff cannot book', { status: h.status });
const notConnected = () =>
  new DomainError('conflict', 'calendar_not_connected', 'No active calendar connection: connect one under /v1/integration-connections first');

export async function handoffAvailability(tenantId: string, handoff: Handoff, q: Required<AvailabilityQuestion>) {
  if (handoff.status === 'pending') throw notConfirmed(handoff);
  const connection = await activeCalendar(tenantId);
  if (!connection) throw notConnected();
  const at = now();
  const free = await calendarAvailability(connection, q, at);
  const expiresAt = new Date(at.getTime() + SLOT_TTL_MS).toISOString();
  const { cursorKey } = await appSecrets();
  return {
    handoff_id: handoff.id,
    timezone: free.timezone,
    duration_minutes: q.duration_minutes,
    slots: free.slots.map((s) => ({
      id: signSlot(cursorKey, { tenantId, handoffId: handoff.id, startsAt: s.starts_at, endsAt: s.ends_at, expiresAt }),
      starts_at: s.starts_at,
      ends_at: s.ends_at,
      expires_at: expiresAt,
    })),
  };
}

/**
 * The calendar event id a handoff's booking of a slot gets (Google: base32hex, 5–1024 chars;
 * hex is a subset). Bound to the slot too, so an event left by a failed attempt at one slot
 * is never mistaken for the booking of another.
 */
export const bookingEventId = (handoffId: string, startsAt: string, endsAt: string) =>
  `hof${createHash('sha256').update(`${handoffId}|${startsAt}|${endsAt}`).digest('hex').slice(0, 40)}`;

export async function bookHandoffSlot(tenantId: string, handoff: Handoff, slotId: string): Promise<{ handoff: Handoff; created: boolean }> {
  // Booking twice with the very slot id that booked it: the same booking, however long ago it
  // was offered (its 10 minutes are about offering a free slot, not about replaying a booking).
  if (handoff.status === 'booked' && handoff.booking?.slot_id === slotId) return { handoff, created: false };
  const { cursorKey } = await appSecrets();
  const at = now();
  const check = verifySlot(cursorKey, slotId, { tenantId, handoffId: handoff.id }, at);
  if (!check.ok) {
    if (check.reason === 'slot_expired')
      throw new DomainError('conflict', 'slot_expired', 'This slot was offered more than 10 minutes ago: ask for availability again');
    throw invalid(
      ['body', 'slot_id'],
      check.reason === 'slot_foreign' ? 'This slot was offered for another handoff' : 'Not a slot id this service issued',
      check.reason,
      slotId,
    );
  }
  const slot = check.slot;
  if (handoff.status === 'booked') {
    if (handoff.booking?.starts_at === slot.startsAt && handoff.booking.ends_at === slot.endsAt) return { handoff, created: false }; // booking twice: the same booking
    throw new DomainError('conflict', 'handoff_already_booked', `This handoff is already booked for ${handoff.booking?.starts_at}`, { status: handoff.status });
  }
  if (handoff.status !== 'confirmed') throw notConfirmed(handoff);
  const connection = await activeCalendar(tenantId);
  if (!connection) throw notConnected();
  const start = Date.parse(slot.startsAt);
  const end = Date.parse(slot.endsAt);
  if (start < at.getTime()) throw new DomainError('conflict', 'slot_expired', 'This slot has already started');
  const busy = await busyBlocks(connection, start, end);
  const taken = new DomainError('conflict', 'slot_taken', 'This slot is no longer free: ask for availability again');
  if (busy.some((b) => b.start < end && b.end > start)) throw taken;
  const eventId = bookingEventId(handoff.id, slot.startsAt, slot.endsAt);
  // Google first: a failure here (thrown as a 502) leaves nothing committed, so a retry with
  // the same slot reaches Google again; an event Google already holds under this id is ours.
  if (connection.provider === 'google_calendar')
    await googleInsertEvent((await getConnectionRecord(tenantId, connection.id))!, {
      id: eventId,
      startsAt: slot.startsAt,
      endsAt: slot.endsAt,
      summary: 'Booking from a receptionist call',
    }).catch((err) => {
      if (!(err instanceof DomainError && err.code === 'calendar_provider_error' && / 409$/.test(err.detail))) throw err;
    });
  const result = await bookHandoff(tenantId, handoff, connection, { startsAt: slot.startsAt, endsAt: slot.endsAt, slotId }, eventId, at);
  if (result.kind === 'slot_taken') throw taken;
  if (result.kind === 'moved_on') {
    if (result.handoff.status === 'booked' && result.handoff.booking?.starts_at === slot.startsAt) return { handoff: result.handoff, created: false };
    throw new DomainError('conflict', 'handoff_already_booked', 'This handoff was booked by another request', { status: result.handoff.status });
  }
  return { handoff: result.handoff, created: true };
}
