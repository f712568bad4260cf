/** The runtime's events as stored (shared/repositories/runtime-events.ts): one transaction per batch, an id stored once, the aggregates under the count read. */
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { callKeys } from '../../../shared/db/keys.js';
import { DomainError } from '../../../shared/errors.js';
import { callEventRecords, callTurns, recordCallEvents } from '../../../shared/repositories/runtime-events.js';
import type { RuntimeEvent } from '../../../shared/schemas/runtime-events.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-11-18T15:00:30.000Z');
const turn = (id: string, text: string) => ({ id, type: 'turn', at: '2026-11-18T15:00:10.000Z', speaker: 'contact', text }) as RuntimeEvent;
const seedCall = (fields: Record<string, unknown> = {}) =>
  table.put({
    ...callKeys.call(T, CALL),
    type: 'call',
    tenant_id: T,
    id: CALL,
    direction: 'outbound',
    state: 'answered',
    to_e164: '+12125550199',
    answered_at: '2026-11-18T15:00:00.000Z',
    created_at: '2026-11-18T14:59:00.000Z',
    ...fields,
  });
const sentItems = () =>
  inputsOf(TransactWriteCommand)[0]!.TransactItems as {
    Put?: { Item: Record<string, unknown>; ConditionExpression?: string };
    Update?: Record<string, unknown>;
  }[];
beforeEach(() => {
  table.reset();
  ddb.on(TransactWriteCommand).resolves({});
});

describe('recordCallEvents', () => {
  it('stores each new event once (conditional put) with the call’s aggregates under the state and count read', async () => {
    seedCall();
    const out = await recordCallEvents(T, CALL, [turn('e1', 'hello'), turn('e2', 'yes')], at);
    expect(out.results.map((r) => [r.id, r.seq])).toEqual([
      ['e1', 0],
      ['e2', 1],
    ]);
    const items = sentItems();
    const events = items.filter((i) => i.Put?.Item.type === 'call_event');
    expect(events.map((e) => e.Put!.Item.sk)).toEqual(['EVENT#e1', 'EVENT#e2']);
    expect(events.every((e) => e.Put!.ConditionExpression === 'attribute_not_exists(pk)')).toBe(true);
    const update = items.find((i) => i.Update)!.Update!;
    expect(update.ConditionExpression).toBe('attribute_exists(pk) AND #state = :from AND (attribute_not_exists(#event_count) OR #event_count = :zero)');
    expect(update.ExpressionAttributeValues).toMatchObject({ ':from': 'answered', ':zero': 0, ':event_count': 2 });
  });

  it('a replayed batch answers what was stored and writes nothing; a reused id with another body is 409', async () => {
    seedCall({ event_count: 1 });
    await recordCallEvents(T, CALL, [turn('e1', 'hello')], at);
    const stored = sentItems().find((i) => i.Put?.Item.sk === 'EVENT#e1')!.Put!.Item;
    table.put(stored as never);
    ddb.resetHistory();
    expect((await recordCallEvents(T, CALL, [turn('e1', 'hello')], at)).results).toEqual([
      { id: 'e1', type: 'turn', seq: stored.seq, received_at: at.toISOString() },
    ]);
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
    await expect(recordCallEvents(T, CALL, [turn('e1', 'goodbye')], at)).rejects.toMatchObject({ code: 'event_id_reused' });
  });

  it('404 for an unknown call; 409 for a call that never reached a person', async () => {
    await expect(recordCallEvents(T, CALL, [turn('e1', 'x')], at)).rejects.toMatchObject({ kind: 'not_found' });
    seedCall({ state: 'scheduled' });
    const err = await recordCallEvents(T, CALL, [turn('e1', 'x')], at).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'call_not_in_conversation' });
  });

  it('reads again when a writer beat it, and gives up with 409 call_busy', async () => {
    seedCall();
    // Full jitter drawn at zero: the retries pause for nothing, so the file stays fast.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0);
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ConditionalCheckFailed']));
    await expect(recordCallEvents(T, CALL, [turn('e1', 'x')], at)).rejects.toMatchObject({ code: 'call_busy' });
    random.mockRestore();
    expect(inputsOf(TransactWriteCommand).length).toBeGreaterThan(1);
  });
});

describe('reads', () => {
  it("the call's turns by seq, and every event record", async () => {
    for (const [id, seq] of [
      ['b', 2],
      ['a', 1],
    ] as const)
      table.put({ ...callKeys.event(T, CALL, id), event_type: 'turn', seq, event: { id, text: id } });
    expect((await callTurns(T, CALL)).map((t) => t.seq)).toEqual([1, 2]);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({ FilterExpression: 'event_type = :turn', ConsistentRead: true });
    expect((await callEventRecords(T, CALL)).map((e) => e.sk)).toEqual(['EVENT#a', 'EVENT#b']);
  });
});
