/** Receptionist handoffs (shared/repositories/handoffs.ts): created once per action, confirmed by the carrier, booked on free cells only. */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { callKeys, handoffKeys } from '../../../shared/db/keys.js';
import { bookHandoff, getHandoff, type Handoff, handoffConfirmationItems, handoffItems } from '../../../shared/repositories/handoffs.js';
import type { ConnectionRecord } from '../../../shared/repositories/integration-connections.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const AT = '2026-11-18T15:00:00.000Z';
const at = new Date(AT);
const action = (kind: string, action_id: string) => ({ event: { type: 'conversation_action', kind, action_id, arguments: {} } as never });
const inbound = { id: CALL, direction: 'inbound' };
beforeEach(() => table.reset());

function created(kind = 'book_meeting'): Handoff {
  const items = handoffItems(T, inbound, [action(kind, 'act-1')], AT);
  for (const i of items) if (i.Put) table.put(i.Put.Item as never);
  return items[1]!.Put!.Item as unknown as Handoff;
}

describe('handoffItems', () => {
  it('an inbound booking request: the once-per-action guard and the pending handoff (only if absent), its event and activity', () => {
    const items = handoffItems(T, inbound, [action('book_meeting', 'act-1'), action('hang_up', 'act-2')], AT);
    const [guard, handoff] = items;
    expect(guard!.Put).toMatchObject({ Item: handoffKeys.byAction(T, CALL, 'act-1'), ConditionExpression: 'attribute_not_exists(pk)' });
    expect(handoff!.Put!.Item).toMatchObject({ kind: 'booking', status: 'pending', call_id: CALL, action_id: 'act-1', booking: null });
    expect(guard!.Put!.Item!.handoff_id).toBe(handoff!.Put!.Item!.id);
    expect(JSON.stringify(items)).toContain('handoff.created');
    expect(items.some((i) => i.Put?.Item?.type === 'activity' && i.Put.Item.label === 'Caller asked for a booking')).toBe(true);
  });

  it('nothing on an outbound call; at most three per call, counting those already asked', () => {
    expect(handoffItems(T, { id: CALL, direction: 'outbound' }, [action('book_meeting', 'a')], AT)).toEqual([]);
    const asked = { ...inbound, conversation_actions: [{ kind: 'schedule_callback' }, { kind: 'book_meeting' }] };
    const items = handoffItems(T, asked, [action('schedule_callback', 'a'), action('schedule_callback', 'b')], AT);
    expect(items.filter((i) => i.Put?.Item?.type === 'handoff')).toHaveLength(1);
  });
});

describe('confirmation', () => {
  it('a pending handoff reads as pending until the carrier ended its call; then confirmed (a read-only route stores nothing)', async () => {
    const h = created();
    expect(await getHandoff(T, h.id, at)).toMatchObject({ status: 'pending' });
    table.put({ ...callKeys.call(T, CALL), state: 'completed', provider_call_sid: 'CA1', ended_at: '2026-11-18T15:05:00.000Z' });
    expect(await getHandoff(T, h.id, at, { persist: false })).toMatchObject({ status: 'confirmed', confirmed_at: '2026-11-18T15:05:00.000Z' });
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed']));
    expect(await getHandoff(T, h.id, at)).toMatchObject({ id: h.id });
    const [confirm] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(confirm.Update).toMatchObject({ ConditionExpression: '#status = :p', ExpressionAttributeValues: { ':c': 'confirmed', ':p': 'pending' } });
    expect(await getHandoff(T, 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA', at)).toBeUndefined();
  });

  it("the status callback confirms the call's pending handoffs in its own transaction, reading only when one was asked", async () => {
    expect(await handoffConfirmationItems({ tenant_id: T, ...inbound, conversation_actions: [] }, AT)).toEqual([]);
    expect(table.sent).toEqual([]);
    const h = created('schedule_callback');
    const items = await handoffConfirmationItems({ tenant_id: T, ...inbound, conversation_actions: [{ kind: 'schedule_callback' }] }, AT);
    expect(items[0]!.Update!.Key).toEqual(handoffKeys.handoff(T, h.id));
    expect(JSON.stringify(items)).toContain('handoff.confirmed');
  });
});

describe('bookHandoff', () => {
  const connection = { id: 'int_01JAAAAAAAAAAAAAAAAAAAAAAA', provider: 'sandbox_calendar' } as ConnectionRecord;
  const slot = { startsAt: '2026-11-20T09:00:00.000Z', endsAt: '2026-11-20T10:00:00.000Z', slotId: 's1' };

  it('confirmed → booked, locking every 15-minute cell the slot covers, with the sandbox event', async () => {
    const h = created();
    table.put({ ...handoffKeys.handoff(T, h.id), ...h, status: 'booked' });
    ddb.on(TransactWriteCommand).resolves({});
    expect(await bookHandoff(T, { ...h, status: 'confirmed' }, connection, slot, 'evt-1', at)).toMatchObject({ kind: 'booked' });
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items[0].Update).toMatchObject({ ConditionExpression: '#status = :c', ExpressionAttributeValues: { ':b': 'booked', ':c': 'confirmed' } });
    const locks = items.filter((i: { Put?: { Item: { type: string } } }) => i.Put?.Item.type === 'slot_lock');
    expect(locks.map((l: { Put: { Item: { sk: string } } }) => l.Put.Item.sk)).toEqual(['00', '15', '30', '45'].map((m) => `SLOT#2026-11-20T09:${m}:00.000Z`));
    expect(locks.every((l: { Put: { ConditionExpression: string } }) => l.Put.ConditionExpression === 'attribute_not_exists(pk)')).toBe(true);
    expect(items.at(-1).Put.Item.type).toBe('sandbox_calendar_event');
  });

  it('a taken cell is slot_taken; a handoff no longer confirmed has moved on', async () => {
    const h = created();
    ddb.on(TransactWriteCommand).rejectsOnce(transactionCancelled(['None', 'None', 'ConditionalCheckFailed', 'None', 'None', 'None', 'None']));
    expect(await bookHandoff(T, h, connection, slot, 'evt-1', at)).toEqual({ kind: 'slot_taken' });
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None', 'None', 'None', 'None', 'None', 'None']));
    expect(await bookHandoff(T, h, connection, slot, 'evt-1', at)).toMatchObject({ kind: 'moved_on', handoff: { id: h.id, status: 'pending' } });
  });
});
