/**
 * Receptionist handoffs over the local stack: an inbound caller's booking request becomes a
 * handoff (pending until the carrier's signed status callback confirms the call), whose
 * availability offers signed 10-minute slots from the connected calendar; booking one takes
 * it (twice: the same booking), and an expired, tampered, foreign or taken slot is refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { now } from '../../shared/clock.js';
import { bookingEventId } from '../../shared/mobile/handoff-booking.js';
import { getCall, getCallPointer } from '../../shared/repositories/calls.js';
import { bookHandoff, getHandoff } from '../../shared/repositories/handoffs.js';
import { activeCalendar } from '../../shared/repositories/integration-connections.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import type { CallRecordWithEvents } from '../../shared/repositories/runtime-events.js';
import { failNextSandboxGoogleInsert } from '../../shared/sandbox/google.js';
import { playInboundCall } from '../../shared/sandbox/inbound-call.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { resetClock, setClock } from './call-fixtures.js';
import { client, newTenant } from './client.js';
import { agentNumberWorld } from './inbound-fixtures.js';
import { randomNumber } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });
afterEach(resetClock);
let n = 0;
const eid = (p: string) => `${p}-${Date.now().toString(36)}-${++n}`;

async function receptionist() {
  const world = await agentNumberWorld(stack);
  const { api, number, carrier } = world;
  const t = world;
  /** An inbound call whose caller asks for `kind`; returns the handoff and a way to end the call as the carrier. */
  const call = async (tool: 'book_meeting' | 'schedule_callback' = 'book_meeting') => {
    const { params, token, call: record } = await world.ring();
    const runtime = client(stack, token!);
    const at = new Date().toISOString();
    expect(
      (
        await runtime('POST', `/runtime/v1/calls/${record.id}/events`, {
          body: {
            events: [
              { id: eid('t'), type: 'turn', at, speaker: 'contact', text: 'I would like an appointment' },
              { id: eid('a'), type: 'conversation_action', at, action_id: 'act-1', kind: tool, arguments: {} },
            ],
          },
        })
      ).status,
    ).toBe(200);
    const created = (await listTenantEvents(t.tenantId)).filter((e) => e.type === 'handoff.created' && e.data.call_id === record.id);
    expect(created).toHaveLength(1);
    const end = () => carrier('/carrier/twilio/status', { ...params, CallStatus: 'completed', CallDuration: '42' });
    return { callId: record.id, handoffId: created[0]!.data.handoff_id as string, runtime, end };
  };
  return { ...t, api, call, number };
}

const range = { start_date: '2026-06-01', end_date: '2026-06-01', duration_minutes: 30, timezone: 'America/New_York' };
const slotsOf = (api: ReturnType<typeof client>, id: string, body: Record<string, unknown> = range) =>
  api('POST', `/v1/mobile/receptionist/handoffs/${id}/booking/availability`, { body });
async function connectGoogle(api: ReturnType<typeof client>) {
  const start = (await api('POST', '/v1/integration-connections/oauth/start', { body: { provider: 'google_calendar', timezone: 'UTC' } })).body;
  const u = new URL(start.authorize_url);
  const back = new URL((await stack.fetch(`${u.pathname}${u.search}`, { redirect: 'manual' })).headers.get('location')!);
  expect((await stack.fetch(`${back.pathname}${back.search}`)).status).toBe(201);
}
const book = (api: ReturnType<typeof client>, id: string, slot_id: string) =>
  api('POST', `/v1/mobile/receptionist/handoffs/${id}/booking`, { body: { slot_id } });

describe('receptionist handoffs', () => {
  it('pending until the carrier confirms the call; then slots are offered and one is booked (twice: the same booking)', async () => {
    const s = await receptionist();
    setClock('2026-05-29T12:00:00Z');
    await s.api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } });
    const h = await s.call();
    expect((await s.api('GET', `/v1/mobile/receptionist/handoffs/${h.handoffId}`)).body).toMatchObject({
      status: 'pending',
      kind: 'booking',
      call_id: h.callId,
      booking: null,
    });
    expect((await slotsOf(s.api, h.handoffId)).body).toMatchObject({ code: 'handoff_not_confirmed', status: 'pending' });

    expect((await h.end()).status).toBe(200);
    const offered = await slotsOf(s.api, h.handoffId);
    expect(offered.status).toBe(200);
    expect(offered.body).toMatchObject({ handoff_id: h.handoffId, timezone: 'America/New_York', duration_minutes: 30 });
    // 09:00–17:00 New York minus the sandbox lunch hour, 30-minute slots on the quarter hour.
    expect(offered.body.slots[0]).toMatchObject({ starts_at: '2026-06-01T13:00:00.000Z', ends_at: '2026-06-01T13:30:00.000Z' });
    const ttl = Date.parse(offered.body.slots[0].expires_at) - Date.parse('2026-05-29T12:00:00Z');
    expect(ttl).toBeGreaterThanOrEqual(600_000);
    expect(ttl).toBeLessThan(630_000); // 10 minutes from the (moving) test clock
    expect(offered.body.slots.some((x: { starts_at: string }) => x.starts_at === '2026-06-01T16:00:00.000Z')).toBe(false);
    expect((await s.api('GET', `/v1/mobile/receptionist/handoffs/${h.handoffId}`)).body.status).toBe('confirmed');

    const slot = offered.body.slots[0];
    const first = await book(s.api, h.handoffId, slot.id);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'booked', booking: { starts_at: slot.starts_at, ends_at: slot.ends_at } });
    const again = await book(s.api, h.handoffId, slot.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // After the slot’s 10 minutes the same booking request still answers the booking, not slot_expired.
    setClock(Date.parse(slot.expires_at) + 60_000);
    const late = await book(s.api, h.handoffId, slot.id);
    expect(late.status).toBe(200);
    expect(late.body).toEqual(first.body);
    setClock('2026-05-29T12:00:00Z');
    expect((await book(s.api, h.handoffId, offered.body.slots[4].id)).body).toMatchObject({ code: 'handoff_already_booked' });
    // The booked slot is busy on the calendar now.
    const after = await s.api('POST', '/v1/calendar/availability', { body: range });
    expect(after.body.slots.some((x: { starts_at: string; ends_at: string }) => x.starts_at < slot.ends_at && x.ends_at > slot.starts_at)).toBe(false);
    expect((await listTenantEvents(s.tenantId)).filter((e) => e.data.handoff_id === h.handoffId).map((e) => e.type)).toEqual([
      'handoff.created',
      'handoff.confirmed',
      'handoff.booked',
    ]);
  });

  it('the carrier’s status callback that ends the call confirms its handoffs: a webhook-only consumer sees handoff.confirmed without any GET', async () => {
    const s = await receptionist();
    const h = await s.call();
    const events = async () => (await listTenantEvents(s.tenantId)).filter((e) => e.data.handoff_id === h.handoffId);
    expect((await events()).map((e) => e.type)).toEqual(['handoff.created']);
    expect((await h.end()).status).toBe(200);
    // Nothing has read the handoff: the event log (what the relay delivers) already holds the confirmation.
    const confirmed = (await events()).filter((e) => e.type === 'handoff.confirmed');
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]!.data).toMatchObject({ call_id: h.callId, kind: 'booking', status: 'confirmed' });
    expect((await s.api('GET', `/v1/mobile/receptionist/handoffs/${h.handoffId}`)).body).toMatchObject({ status: 'confirmed' });
    await h.end(); // a replayed callback confirms nothing twice
    expect((await events()).filter((e) => e.type === 'handoff.confirmed')).toHaveLength(1);
  });

  it('refuses expired, tampered, foreign and taken slots with their codes', async () => {
    const s = await receptionist();
    setClock('2026-05-29T12:00:00Z');
    await s.api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } });
    const a = await s.call();
    const b = await s.call('schedule_callback');
    await a.end();
    await b.end();
    const slotsA = (await slotsOf(s.api, a.handoffId)).body.slots;
    const slotsB = (await slotsOf(s.api, b.handoffId)).body.slots;

    const foreign = await book(s.api, a.handoffId, slotsB[0].id);
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail[0]).toMatchObject({ loc: ['body', 'slot_id'], type: 'slot_foreign' });
    const [body, mac] = (slotsA[0].id as string).slice(5).split('.');
    const moved = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), s: '2026-06-01T15:00:00.000Z' })).toString(
      'base64url',
    );
    expect((await book(s.api, a.handoffId, `slot_${moved}.${mac}`)).body.detail[0].type).toBe('slot_invalid');

    // b takes 13:00; a’s offer of the same slot is now taken.
    expect((await book(s.api, b.handoffId, slotsB[0].id)).status).toBe(201);
    expect((await book(s.api, a.handoffId, slotsA[0].id)).body.code).toBe('slot_taken');

    setClock(Date.parse(slotsA[8].expires_at));
    expect((await book(s.api, a.handoffId, slotsA[8].id)).body.code).toBe('slot_expired');
    expect((await s.api('GET', `/v1/mobile/receptionist/handoffs/${a.handoffId}`)).body.status).toBe('confirmed');
  });

  it('two concurrent bookings of overlapping slots (09:00–10:00 and 09:15–10:15): exactly one wins, the other is slot_taken', async () => {
    const s = await receptionist();
    setClock('2026-05-29T12:00:00Z');
    await s.api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } });
    const a = await s.call();
    const b = await s.call();
    const c = await s.call();
    await a.end();
    await b.end();
    await c.end();
    const hour = { ...range, duration_minutes: 60 };
    const at = async (id: string, startsAt: string) => (await slotsOf(s.api, id, hour)).body.slots.find((x: { starts_at: string }) => x.starts_at === startsAt);
    const nine = await at(a.handoffId, '2026-06-01T13:00:00.000Z');
    const quarterPast = await at(b.handoffId, '2026-06-01T13:15:00.000Z');
    const results = await Promise.all([book(s.api, a.handoffId, nine.id), book(s.api, b.handoffId, quarterPast.id)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe('slot_taken');
    // The race made deterministic: a third booking that passed its free/busy check before the
    // winner committed (so only the commit can refuse it) overlaps the winner by 30–45 minutes.
    const third = (await getHandoff(s.tenantId, c.handoffId, now()))!;
    const half = await at(c.handoffId, '2026-06-01T14:15:00.000Z');
    const late = await bookHandoff(
      s.tenantId,
      third,
      (await activeCalendar(s.tenantId))!,
      { startsAt: '2026-06-01T13:30:00.000Z', endsAt: '2026-06-01T14:30:00.000Z', slotId: half.id },
      'hofthird',
      now(),
    );
    expect(late.kind).toBe('slot_taken');
    expect((await s.api('GET', `/v1/mobile/receptionist/handoffs/${c.handoffId}`)).body.status).toBe('confirmed');
  });

  it('takes exactly the four fields, needs a calendar, and another tenant’s handoff is a 404', async () => {
    const s = await receptionist();
    const h = await s.call();
    await h.end();
    expect((await slotsOf(s.api, h.handoffId)).body.code).toBe('calendar_not_connected');
    const types = async (body: Record<string, unknown>) =>
      (await slotsOf(s.api, h.handoffId, body)).body.detail.map((d: { loc: unknown[]; type: string }) => `${d.loc.join('.')}:${d.type}`).sort();
    expect(await types({ ...range, timezone: undefined })).toEqual(['body.timezone:missing']);
    expect(await types({ ...range, call_id: 'x', contact_id: 'y', attendee: 'z', connection_id: 'c', calendar_id: 'k' })).toEqual([
      'body.attendee:extra_forbidden',
      'body.calendar_id:extra_forbidden',
      'body.call_id:extra_forbidden',
      'body.connection_id:extra_forbidden',
      'body.contact_id:extra_forbidden',
    ]);
    const other = client(stack, (await newTenant('Other')).token);
    await other('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } });
    expect((await slotsOf(other, h.handoffId)).status).toBe(404);
    expect((await other('GET', `/v1/mobile/receptionist/handoffs/${h.handoffId}`)).status).toBe(404);
    expect((await book(other, h.handoffId, 'slot_x.y')).status).toBe(404);
  });

  it('opens at most three handoffs per call, however many requests a batch repeats', async () => {
    const s = await receptionist();
    const h = await s.call('schedule_callback'); // one already open
    const at = new Date().toISOString();
    const events = Array.from({ length: 20 }, (_, i) => ({
      id: eid('cb'),
      type: 'conversation_action',
      at,
      action_id: `more-${i}`,
      kind: i % 2 ? 'schedule_callback' : 'book_meeting',
      arguments: {},
    }));
    expect((await h.runtime('POST', `/runtime/v1/calls/${h.callId}/events`, { body: { events: events.slice(0, 19) } })).status).toBe(200);
    const created = (await listTenantEvents(s.tenantId)).filter((e) => e.type === 'handoff.created' && e.data.call_id === h.callId);
    expect(created).toHaveLength(3);
  });

  it('a sandbox caller’s booking offers the calendar’s first free slot (check_calendar) and leaves a confirmed handoff', async () => {
    const s = await receptionist();
    await s.api('POST', '/v1/integration-connections', {
      body: {
        provider: 'sandbox_calendar',
        working_hours: {
          monday: [{ start: '13:30', end: '14:30' }],
          tuesday: [{ start: '13:30', end: '14:30' }],
          wednesday: [{ start: '13:30', end: '14:30' }],
          thursday: [{ start: '13:30', end: '14:30' }],
          friday: [{ start: '13:30', end: '14:30' }],
        },
      },
    });
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    // The runtime looks from today: the first free slot it can offer.
    const expected = (await s.api('POST', '/v1/calendar/availability', { body: { start_date: day(0), end_date: day(7), duration_minutes: 30 } })).body.slots[0];
    const played = await playInboundCall({ to: s.number.phone_e164, from: randomNumber('212'), script: 'booking' });
    // The caller talked to the voice runtime over ConversationRelay.
    expect(played.relay?.sessions.length).toBeGreaterThan(0);
    const callId = (await getCallPointer(played.call_sid))!.call_id;
    const call = await waitFor(
      async () => {
        const c = (await getCall(s.tenantId, callId)) as CallRecordWithEvents;
        return c.conversation_actions?.some((a) => a.kind === 'book_meeting') ? c : undefined;
      },
      { timeoutMs: 10_000, message: 'the booking recorded' },
    );
    const booked = call.conversation_actions!.find((a) => a.kind === 'book_meeting')!;
    expect(booked.arguments).toMatchObject({ appointment: { starts_at: expected.starts_at, duration_minutes: 30 } });
    expect(new Date(expected.starts_at).getUTCHours()).not.toBe(15); // not the script’s fallback (tomorrow 15:00 UTC)
    const created = (await listTenantEvents(s.tenantId)).find((e) => e.type === 'handoff.created' && e.data.call_id === call.id)!;
    expect((await s.api('GET', `/v1/mobile/receptionist/handoffs/${created.data.handoff_id}`)).body).toMatchObject({ kind: 'booking', status: 'confirmed' });
  });

  it('books on a Google calendar (the sandbox’s Google): the event is inserted there and its free/busy shows it', async () => {
    const s = await receptionist();
    setClock('2026-05-29T12:00:00Z');
    const start = (await s.api('POST', '/v1/integration-connections/oauth/start', { body: { provider: 'google_calendar', timezone: 'UTC' } })).body;
    const u = new URL(start.authorize_url);
    const back = new URL((await stack.fetch(`${u.pathname}${u.search}`, { redirect: 'manual' })).headers.get('location')!);
    expect((await stack.fetch(`${back.pathname}${back.search}`)).status).toBe(201);
    const h = await s.call();
    await h.end();
    const day = { start_date: '2026-06-01', end_date: '2026-06-01', duration_minutes: 60, timezone: 'UTC' };
    const offered = (await slotsOf(s.api, h.handoffId, day)).body.slots;
    const slot = offered.find((x: { starts_at: string }) => x.starts_at === '2026-06-01T14:00:00.000Z');
    expect(slot).toBeDefined();
    expect((await book(s.api, h.handoffId, slot.id)).status).toBe(201);
    expect((await book(s.api, h.handoffId, slot.id)).status).toBe(200);
    const after = (await s.api('POST', '/v1/calendar/availability', { body: day })).body.slots.map((x: { starts_at: string }) => x.starts_at);
    for (const busy of ['2026-06-01T13:15:00.000Z', '2026-06-01T14:00:00.000Z', '2026-06-01T14:45:00.000Z']) expect(after).not.toContain(busy);
    expect(after).toContain('2026-06-01T15:00:00.000Z');
  });

  it('a Google failure while booking leaves the handoff unbooked; the retry inserts the event and books', async () => {
    const s = await receptionist();
    setClock('2026-05-29T12:00:00Z');
    await connectGoogle(s.api);
    const h = await s.call();
    await h.end();
    const day = { start_date: '2026-06-01', end_date: '2026-06-01', duration_minutes: 60, timezone: 'UTC' };
    const slot = (await slotsOf(s.api, h.handoffId, day)).body.slots.find((x: { starts_at: string }) => x.starts_at === '2026-06-01T14:00:00.000Z');
    await failNextSandboxGoogleInsert(bookingEventId(h.handoffId, slot.starts_at, slot.ends_at));
    const failed = await s.api('POST', `/v1/mobile/receptionist/handoffs/${h.handoffId}/booking`, { body: { slot_id: slot.id }, allowServerError: true });
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('calendar_provider_error');
    expect((await s.api('GET', `/v1/mobile/receptionist/handoffs/${h.handoffId}`)).body).toMatchObject({ status: 'confirmed', booking: null });
    const retry = await book(s.api, h.handoffId, slot.id);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ status: 'booked', booking: { starts_at: slot.starts_at } });
    // The event is on the Google calendar: its free/busy no longer offers the hour.
    const after = (await s.api('POST', '/v1/calendar/availability', { body: day })).body.slots.map((x: { starts_at: string }) => x.starts_at);
    expect(after).not.toContain('2026-06-01T14:00:00.000Z');
  });

  it('the runtime’s check_calendar reads the same availability as the API', async () => {
    const s = await receptionist();
    setClock('2026-05-29T12:00:00Z');
    await s.api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } });
    const h = await s.call();
    const body = { start_date: '2026-06-01', end_date: '2026-06-03', duration_minutes: 45 };
    const viaRuntime = await h.runtime('POST', `/runtime/v1/calls/${h.callId}/calendar/availability`, { body });
    expect(viaRuntime.status).toBe(200);
    expect(viaRuntime.body).toEqual((await s.api('POST', '/v1/calendar/availability', { body })).body);
  });
});
