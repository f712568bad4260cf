/**
 * The webhook ledger's store with DynamoDB mocked (aws-sdk-client-mock): the commands it
 * builds (keys, conditions, the delivered counts summed per type, transactions split at
 * DynamoDB's 100 items) and how it reads DynamoDB's refusals (a cancelled transaction leaves
 * out only the events whose own condition failed; a failed condition is an answer, not an error).
 */

import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { outboxKeys, webhookKeys } from '../../../shared/db/keys.js';
import { newId } from '../../../shared/ids.js';
import {
  claimDueAttempt,
  claimDueAttempts,
  getWebhookEvent,
  getWebhookEvents,
  markSkipped,
  recordAttempts,
  releaseLeases,
  type WebhookEventRecord,
} from '../../../shared/repositories/webhook-events.js';
import { conditionFailed, ddb, TABLE, transactionCancelled } from '../../support/document-client-mock.js';

beforeEach(() => ddb.reset());

const tenantId = newId('ten');
const at = new Date('2026-03-01T12:00:00.000Z');
const record = (n = 0, type = 'call.completed'): WebhookEventRecord => {
  const id = newId('evt');
  return {
    event: { id, type: type as never, tenant_id: tenantId, created_at: at.toISOString(), data: {} },
    event_type: type,
    created_at: at.toISOString(),
    delivery_status: 'pending',
    attempt_count: n,
  };
};
const claim = { leaseId: 'lease-1', leaseUntil: new Date(at.getTime() + 30_000), at };
const delivered: { status_code: number; duration_ms: number; error: string | null; detail: string } = {
  status_code: 200,
  duration_ms: 12.4,
  error: null,
  detail: 'Your endpoint answered 200 OK',
};

describe('claimDueAttempts (the wave lease)', () => {
  it('takes every lease in one transaction, each under its own attempt count, pending, due and unleased', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const records = [record(0), record(2)];
    const leased = await claimDueAttempts(tenantId, records, claim);
    expect([...leased]).toEqual(records.map((r) => r.event.id));
    const calls = ddb.commandCalls(TransactWriteCommand);
    expect(calls).toHaveLength(1);
    const items = calls[0]!.args[0].input.TransactItems!;
    expect(items.map((i) => i.Update!.Key)).toEqual(records.map((r) => outboxKeys.event(tenantId, r.event.id)));
    const [first, second] = items.map((i) => i.Update!);
    expect(first!.ConditionExpression).toContain('attribute_not_exists(attempt_count) OR attempt_count = :n');
    expect(second!.ConditionExpression).toContain('attempt_count = :n');
    expect(second!.ConditionExpression).toContain('lease_until < :at');
    expect(second!.ConditionExpression).toContain('next_attempt_at <= :at');
    expect(second!.ExpressionAttributeValues).toMatchObject({
      ':lease': 'lease-1',
      ':n': 2,
      ':until': claim.leaseUntil.toISOString(),
      ':at': at.toISOString(),
    });
  });

  it('an event whose condition fails is left out and the rest leased in a second transaction', async () => {
    const records = [record(), record(), record()];
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['None', 'ConditionalCheckFailed', 'None']))
      .resolves({});
    const leased = await claimDueAttempts(tenantId, records, claim);
    expect([...leased]).toEqual([records[0]!.event.id, records[2]!.event.id]);
    const second = ddb.commandCalls(TransactWriteCommand)[1]!.args[0].input.TransactItems!;
    expect(second.map((i) => i.Update!.Key)).toEqual([records[0]!, records[2]!].map((r) => outboxKeys.event(tenantId, r.event.id)));
  });

  it('a refusal that names no condition is an error, not an answer', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ThrottlingError']));
    await expect(claimDueAttempts(tenantId, [record(), record()], claim)).rejects.toBeInstanceOf(TransactionCanceledException);
  });
});

describe('releaseLeases (leases taken but left untried)', () => {
  it('gives back only leases still held under this lease id; one held by another is left out and the rest released', async () => {
    const ids = [newId('evt'), newId('evt'), newId('evt')];
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['None', 'ConditionalCheckFailed', 'None']))
      .resolves({});
    await releaseLeases(tenantId, ids, 'lease-1');
    const [first, second] = ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!.map((i) => i.Update!));
    expect(first!.map((u) => u.Key)).toEqual(ids.map((id) => outboxKeys.event(tenantId, id)));
    expect(first![0]).toMatchObject({
      UpdateExpression: 'REMOVE lease_id, lease_until',
      ConditionExpression: 'lease_id = :lease',
      ExpressionAttributeValues: { ':lease': 'lease-1' },
    });
    expect(second!.map((u) => u.Key)).toEqual([ids[0]!, ids[2]!].map((id) => outboxKeys.event(tenantId, id)));
  });
});

describe('claimDueAttempt (the small wave: one update that returns the event)', () => {
  it('answers the event as updated; undefined when its condition fails; other errors are thrown', async () => {
    const r = record();
    ddb
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { ...r, lease_id: 'lease-1' } })
      .rejectsOnce(conditionFailed())
      .rejectsOnce(new Error('throttled'));
    expect(await claimDueAttempt(tenantId, r.event.id, claim)).toMatchObject({ lease_id: 'lease-1', event: { id: r.event.id } });
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({ Key: outboxKeys.event(tenantId, r.event.id), ReturnValues: 'ALL_NEW' });
    expect(await claimDueAttempt(tenantId, r.event.id, claim)).toBeUndefined();
    await expect(claimDueAttempt(tenantId, r.event.id, claim)).rejects.toThrow('throttled');
  });
});

describe('recordAttempts (the wave ledger)', () => {
  const outcome = (status: 'delivered' | 'pending', result = delivered) => ({
    leaseId: 'lease-1',
    result,
    at,
    trigger: 'automatic' as const,
    status,
    nextAttemptAt: status === 'pending' ? new Date(at.getTime() + 5_000) : null,
    endpointId: 'whe_1',
  });

  it('one transaction: per event its state under the lease and its attempt row; the first deliveries counted once per type', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const [a, b, c] = [record(0), record(0, 'call.answered'), record(1)];
    const failedResult = { status_code: 503, duration_ms: 20, error: 'http_status', detail: 'Your endpoint answered 503' };
    const recorded = await recordAttempts(tenantId, [
      { record: a!, outcome: outcome('delivered') },
      { record: b!, outcome: outcome('delivered') },
      { record: c!, outcome: outcome('pending', failedResult) },
    ]);
    expect(recorded.get(a!.event.id)).toMatchObject({ attempt: 1, status_code: 200, duration_ms: 12, trigger: 'automatic' });
    expect(recorded.get(c!.event.id)).toMatchObject({ attempt: 2, status_code: 503, error: 'http_status' });
    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(3 * 2 + 2);
    // The retried event's due-index entry follows its next attempt; a delivered one leaves the index.
    const stateOf = (r: WebhookEventRecord) =>
      items.find((i) => i.Update && JSON.stringify(i.Update.Key) === JSON.stringify(outboxKeys.event(tenantId, r.event.id)))!.Update!;
    expect(stateOf(c!).ConditionExpression).toBe('lease_id = :lease AND attempt_count = :n');
    expect(stateOf(c!).ExpressionAttributeValues).toMatchObject({
      ':n': 1,
      ':n1': 2,
      ':status': 'pending',
      ':duesk': webhookKeys.dueIndex(outcome('pending').nextAttemptAt!.toISOString(), tenantId, c!.event.id).gsi1sk,
    });
    expect(stateOf(a!).UpdateExpression).toContain('REMOVE lease_id, lease_until, gsi1pk, gsi1sk');
    expect(stateOf(a!).UpdateExpression).toContain('delivered_at = :at');
    const rows = items.filter((i) => i.Put).map((i) => i.Put!);
    expect(rows.map((p) => p.Item?.sk)).toEqual([
      webhookKeys.attempt(tenantId, a!.event.id, 1).sk,
      webhookKeys.attempt(tenantId, b!.event.id, 1).sk,
      webhookKeys.attempt(tenantId, c!.event.id, 2).sk,
    ]);
    expect(rows.every((p) => p.ConditionExpression === 'attribute_not_exists(pk)')).toBe(true);
    const counts = items.filter((i) => i.Update && String(i.Update.Key!.sk).includes('call.'));
    expect(counts.map((i) => [i.Update!.Key, i.Update!.ExpressionAttributeValues![':k']])).toEqual([
      [webhookKeys.deliveredCount(tenantId, 'whe_1', 'call.completed'), 1],
      [webhookKeys.deliveredCount(tenantId, 'whe_1', 'call.answered'), 1],
    ]);
  });

  it('an event whose lease was lost is left out and the rest recorded; many events go in transactions of at most 100 items', async () => {
    const records = Array.from({ length: 60 }, () => record());
    // The first transaction (49 events of one type: 99 items) refuses the second event's lease condition (its item 2).
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['None', 'None', 'ConditionalCheckFailed']))
      .resolves({});
    const recorded = await recordAttempts(
      tenantId,
      records.map((r) => ({ record: r, outcome: outcome('delivered') })),
    );
    expect(recorded.size).toBe(59);
    expect(recorded.has(records[1]!.event.id)).toBe(false);
    const sizes = ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!.length);
    expect(sizes).toEqual([49 * 2 + 1, 48 * 2 + 1, 11 * 2 + 1]);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    const counted = ddb
      .commandCalls(TransactWriteCommand)
      .slice(1)
      .map((c) => c.args[0].input.TransactItems!.at(-1)!.Update!.ExpressionAttributeValues![':k']);
    expect(counted).toEqual([48, 11]);
  });

  it('events of many types take fewer a transaction: each type its delivered count, within 100 items', async () => {
    const records = Array.from({ length: 40 }, (_, i) => record(0, `type.${i}`));
    ddb.on(TransactWriteCommand).resolves({});
    const recorded = await recordAttempts(
      tenantId,
      records.map((r) => ({ record: r, outcome: outcome('delivered') })),
    );
    expect(recorded.size).toBe(40);
    const sizes = ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!.length);
    expect(sizes).toEqual([33 * 3, 7 * 3]);
  });
});

describe('reads', () => {
  it('getWebhookEvents reads consistently, 100 keys a call, and asks again for what DynamoDB left unprocessed', async () => {
    const records = Array.from({ length: 101 }, () => record());
    // As stored: the item carries its key.
    const byKey = new Map(records.map((r) => [outboxKeys.event(tenantId, r.event.id).sk, { ...outboxKeys.event(tenantId, r.event.id), ...r }]));
    let first = true;
    ddb.on(BatchGetCommand).callsFake(async (input) => {
      const keys = input.RequestItems[TABLE].Keys as { sk: string }[];
      const [held, ...rest] = keys;
      if (first) {
        first = false;
        return { Responses: { [TABLE]: rest.map((k) => byKey.get(k.sk)) }, UnprocessedKeys: { [TABLE]: { Keys: [held] } } };
      }
      return { Responses: { [TABLE]: keys.map((k) => byKey.get(k.sk)) } };
    });
    const found = await getWebhookEvents(tenantId, [...records.map((r) => r.event.id), 'not-an-id', records[0]!.event.id]);
    expect(found.size).toBe(101);
    const calls = ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems![TABLE]!);
    expect(calls.map((c) => c.Keys!.length)).toEqual([100, 1, 1]);
    expect(calls.every((c) => c.ConsistentRead)).toBe(true);
  });

  it('getWebhookEvent answers nothing for an id that is not an event id, without a read', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await getWebhookEvent(tenantId, 'cal_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeUndefined();
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });
});

describe('markSkipped', () => {
  it('under the lease, leaving the due index; an event that moved on is not an error', async () => {
    const r = record();
    ddb.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    await markSkipped(tenantId, r.event.id, 'no_endpoint', at, 'lease-1');
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toContain('lease_id = :lease');
    expect(input.UpdateExpression).toContain('REMOVE lease_id, lease_until, gsi1pk, gsi1sk');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':reason': 'no_endpoint', ':lease': 'lease-1' });
    await expect(markSkipped(tenantId, r.event.id, 'no_endpoint', at, 'lease-1')).resolves.toBeUndefined();
  });
});
