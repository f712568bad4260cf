/**
 * The tenant's connected calendar (shared/calendar/calendar-service.ts `connectedCalendar`) over
 * the in-memory table: what it reads, in how many dependent round trips, and that a connection
 * this instance knew is never answered once it is no longer the tenant's calendar.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { calendarAvailability, connectedCalendar } from '../../../shared/calendar/calendar-service.js';
import { integrationKeys } from '../../../shared/db/keys.js';
import { createConnection, getConnectionRecord } from '../../../shared/repositories/integration-connections.js';
import { ddb, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
let n = 0;
/** A tenant of its own per test: the service keeps which connection each tenant's calendar is. */
let T = '';
beforeEach(() => {
  table.reset();
  T = `ten_01JAAAAAAAAAAAAAAAAAAAAA${String(n++).padStart(2, '0')}`;
});

const at = new Date('2026-05-20T00:00:00Z');
const q = { start_date: '2026-06-01', end_date: '2026-06-02', duration_minutes: 30 };

function bookEvent(connectionId: string, startsAt: string, endsAt: string, eventId: string) {
  table.put({ ...integrationKeys.sandboxEvent(T, connectionId, startsAt, eventId), starts_at: startsAt, ends_at: endsAt });
}

/** What was read, in order: the guard, a connection, or a calendar's events. */
const reads = () =>
  table.sent.map(({ command, input }) =>
    command === 'Query' ? 'events' : input.Key?.sk === integrationKeys.activeCalendar(T).sk ? 'guard' : `${command} ${input.Key?.sk}`,
  );

/** Hold every GetItem until `release` (the table answers it then, and every later one at once). */
function holdGets() {
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  ddb.on(GetCommand).callsFake(async (input) => {
    await released;
    return { Item: table.get(input.Key) };
  });
  return release;
}

describe('the tenant’s connected calendar', () => {
  it('reads the guard first; once known, the connection and its events together, with the same slots as a read of its own', async () => {
    const c = await createConnection(T, { provider: 'sandbox_calendar', scopes: [], timezone: 'America/New_York' }, at);
    bookEvent(c.id, '2026-06-01T14:00:00.000Z', '2026-06-01T15:00:00.000Z', 'evt_01');
    table.forgetSent();
    const first = (await connectedCalendar(T, q))!;
    expect(first.connection.id).toBe(c.id);
    expect(reads()).toEqual(['guard', 'events', `GetItem INTEGRATION#${c.id}`]);

    table.forgetSent();
    const release = holdGets();
    const second = connectedCalendar(T, q);
    // The events are asked while the connection's read is still out: one round trip.
    await vi.waitFor(() => expect(reads()).toEqual(['events', `GetItem INTEGRATION#${c.id}`]), { timeout: 2000 });
    release();
    const known = (await second)!;
    expect(known.connection.id).toBe(c.id);

    // The events read beside the connection answer exactly what the connection's own read does.
    const own = await calendarAvailability((await getConnectionRecord(T, c.id))!, q, at);
    expect(await calendarAvailability(known.connection, q, at, known.read)).toEqual(own);
    expect(own.slots.map((s) => s.starts_at)).not.toContain('2026-06-01T14:00:00.000Z');
    expect(own.slots.map((s) => s.starts_at)).toContain('2026-06-01T15:00:00.000Z');
  });

  it('a zone far from the connection’s still finds every event its dates cover', async () => {
    const c = await createConnection(T, { provider: 'sandbox_calendar', scopes: [], timezone: 'Pacific/Kiritimati' }, at);
    bookEvent(c.id, '2026-05-31T10:30:00.000Z', '2026-05-31T11:00:00.000Z', 'evt_early');
    bookEvent(c.id, '2026-06-03T10:30:00.000Z', '2026-06-03T11:00:00.000Z', 'evt_late');
    for (const timezone of ['Pacific/Kiritimati', 'Etc/GMT+12', undefined]) {
      const asked = { ...q, ...(timezone ? { timezone } : {}) };
      await connectedCalendar(T, asked); // known from here on
      const known = (await connectedCalendar(T, asked))!;
      expect(known.read).toBeDefined();
      expect(await calendarAvailability(known.connection, asked, at, known.read)).toEqual(await calendarAvailability(known.connection, asked, at));
    }
  });

  it('a known connection that was revoked is not answered: the guard decides, and the next connection is read', async () => {
    const a = await createConnection(T, { provider: 'sandbox_calendar', scopes: [] }, at);
    expect((await connectedCalendar(T, q))?.connection.id).toBe(a.id);
    // DELETE's transaction: the connection revoked, the guard gone.
    table.put({ ...table.get(integrationKeys.connection(T, a.id))!, status: 'revoked' });
    table.remove(integrationKeys.activeCalendar(T));
    table.forgetSent();
    expect(await connectedCalendar(T, q)).toBeUndefined();
    expect(reads()).toEqual(['events', `GetItem INTEGRATION#${a.id}`, 'guard']);
    // Forgotten: without a calendar the guard alone is read.
    table.forgetSent();
    expect(await connectedCalendar(T, q)).toBeUndefined();
    expect(reads()).toEqual(['guard']);

    const b = await createConnection(T, { provider: 'google_calendar', scopes: [] }, at);
    expect((await connectedCalendar(T, q))?.connection.id).toBe(b.id);
    // A Google calendar's busy times are Google's: once known, no sandbox events are read for it.
    table.forgetSent();
    const google = (await connectedCalendar(T, q))!;
    expect(google.read).toBeUndefined();
    expect(reads()).toEqual([`GetItem INTEGRATION#${b.id}`]);
  });

  it('without a question, the connection only', async () => {
    const c = await createConnection(T, { provider: 'sandbox_calendar', scopes: [] }, at);
    await connectedCalendar(T);
    table.forgetSent();
    expect((await connectedCalendar(T))?.read).toBeUndefined();
    expect(reads()).toEqual([`GetItem INTEGRATION#${c.id}`]);
  });
});
