/**
 * What a committing transaction adds for webhooks (shared/events/outbox.ts, read back through
 * shared/repositories/outbox-events.ts), on the in-memory table and through a real state change
 * (an account deletion's confirmation): the tenant's event in its own log (and the webhook due
 * index), a pending marker on the event's outbox shard carrying a copy of the event when it is
 * at most CARRIED_EVENT_MAX_BYTES and naming it only when bigger; a refused transaction adds
 * neither; another tenant sees nothing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { keys, outboxKeys, webhookKeys } from '../../../shared/db/keys.js';
import { transactWrite } from '../../../shared/db/transact-write.js';
import { outboxItems } from '../../../shared/events/outbox.js';
import { confirmDeletion } from '../../../shared/repositories/account-deletion.js';
import { getEvent, listTenantEvents, pendingEvents } from '../../../shared/repositories/outbox-events.js';
import { CARRIED_EVENT_MAX_BYTES } from '../../../shared/schemas/queue-bodies.js';
import { memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const OTHER = 'ten_01JBBBBBBBBBBBBBBBBBBBBBBB';
const USER = 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-11-18T15:00:00.000Z');
beforeEach(() => table.reset());

const shardOf = (eventId: string) => Number(outboxKeys.pending(eventId).pk.split('#').at(-1));
const markers = () => table.all().filter((i) => i.type === 'outbox_pending');

/** Data whose event serialises to exactly `bytes` (the id is a fixed-length ULID, so the size is deterministic). */
function eventOfSize(bytes: number) {
  const base = Buffer.byteLength(JSON.stringify(outboxItems(T, 'message.failed', { pad: '' }, at).event));
  return { pad: 'x'.repeat(bytes - base) };
}

describe('a state change that commits its event', () => {
  it('adds the tenant’s event (in the due index) and one marker on its shard carrying the event; only for this tenant', async () => {
    await confirmDeletion({ tenantId: T, userId: USER, by: 'password', at });
    const [event, ...more] = await listTenantEvents(T);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ type: 'account.deletion_requested', tenant_id: T, created_at: at.toISOString() });
    expect(event!.id).toMatch(/^evt_/);
    const stored = table.get(outboxKeys.event(T, event!.id))!;
    expect(stored).toMatchObject({
      ...webhookKeys.dueIndex(at.toISOString(), T, event!.id),
      event_type: 'account.deletion_requested',
      delivery_status: 'pending',
      attempt_count: 0,
    });
    expect(markers()).toHaveLength(1);
    expect(await pendingEvents(shardOf(event!.id))).toEqual([{ tenant_id: T, event_id: event!.id, event }]);
    // Scoped to its tenant: another tenant's log is empty and cannot read it by id.
    expect(await listTenantEvents(OTHER)).toEqual([]);
    expect(await getEvent(OTHER, event!.id)).toBeUndefined();
    expect(await getEvent(T, event!.id)).toEqual(event);
  });

  it('a refused transaction adds no event and no marker', async () => {
    const proofSpent = { ConditionCheck: { TableName: 't', Key: keys.deletionProof(T), ConditionExpression: 'attribute_exists(pk)' } };
    const refused = new Error('proof already used');
    await expect(confirmDeletion({ tenantId: T, userId: USER, by: 'email', at }, [proofSpent], () => refused)).rejects.toBe(refused);
    expect(await listTenantEvents(T)).toEqual([]);
    expect(markers()).toEqual([]);
  });
});

describe('the marker’s carried copy', () => {
  it(`an event of exactly ${CARRIED_EVENT_MAX_BYTES} bytes rides in its marker; one byte more is named only, read from the log`, async () => {
    const small = outboxItems(T, 'message.failed', eventOfSize(CARRIED_EVENT_MAX_BYTES), at);
    const big = outboxItems(T, 'message.failed', eventOfSize(CARRIED_EVENT_MAX_BYTES + 1), at);
    expect(Buffer.byteLength(JSON.stringify(small.event))).toBe(CARRIED_EVENT_MAX_BYTES);
    await transactWrite([...small.items, ...big.items]);
    expect(table.get(outboxKeys.pending(small.event.id))).toMatchObject({ tenant_id: T, event_id: small.event.id, event: small.event });
    const named = table.get(outboxKeys.pending(big.event.id))!;
    expect(named).toMatchObject({ tenant_id: T, event_id: big.event.id });
    expect(named).not.toHaveProperty('event');
    expect(await getEvent(T, big.event.id)).toEqual(big.event);
  });

  it('each event is committed at most once: the same items again are refused whole', async () => {
    const { items, event } = outboxItems(T, 'message.failed', {}, at);
    await transactWrite(items);
    await expect(transactWrite(items)).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect((await listTenantEvents(T)).map((e) => e.id)).toEqual([event.id]);
  });
});
