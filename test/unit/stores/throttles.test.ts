/** Sign-in throttle counters (shared/repositories/throttles.ts): versioned backoff puts and exact window slots. */
import { createHash } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { platformKeys } from '../../../shared/db/keys.js';
import { THROTTLES, windowStart } from '../../../shared/policy/auth/throttle-rules.js';
import { backoffPut, clearBackoff, giveBackFailure, readBackoff, releaseSlot, reserveSlot } from '../../../shared/repositories/throttles.js';
import { conditionFailed, ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
beforeEach(() => table.reset());
// The subject is hashed case-blind: an address never appears in a key.
const hash = createHash('sha256').update('ann@acme.test').digest('hex');
const backoffKey = platformKeys.throttleBackoff('password_pair', hash);
const at = new Date('2026-11-18T15:07:00.000Z');

describe('password backoff', () => {
  it('reads none as version 0, and a stored counter with its version', async () => {
    expect(await readBackoff('password_pair', 'Ann@Acme.test')).toEqual({ state: undefined, version: 0 });
    table.put({ ...backoffKey, failures: 3, last_at: 10, next_at: 20, version: 4 });
    expect(await readBackoff('password_pair', 'ann@acme.test')).toEqual({ state: { failures: 3, lastAt: 10, nextAt: 20 }, version: 4 });
    expect(table.sent.every((s) => s.input.ConsistentRead === true)).toBe(true);
  });

  it('puts the next state only if nobody wrote since the read (absent, or the version read)', () => {
    const next = { failures: 1, lastAt: 1_000, nextAt: 1_000 };
    const first = backoffPut('password_pair', 'ann@acme.test', { state: undefined, version: 0 }, next).Put!;
    expect(first.Item).toMatchObject({ ...backoffKey, type: 'throttle', failures: 1, version: 1 });
    expect(first.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(first.ExpressionAttributeValues).toBeUndefined();
    const later = backoffPut('password_pair', 'ann@acme.test', { state: next, version: 4 }, next).Put!;
    expect(later).toMatchObject({ ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': 4 }, Item: { version: 5 } });
    expect(later.Item!.ttl).toEqual(expect.any(Number));
  });

  it('a success clears the counter, or gives one failure back only while there is one', async () => {
    table.put({ ...backoffKey, failures: 1 });
    await clearBackoff('password_pair', 'ann@acme.test');
    expect(table.get(backoffKey)).toBeUndefined();
    expect(inputsOf(DeleteCommand)[0]!.Key).toEqual(backoffKey);
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(giveBackFailure('password_pair', 'ann@acme.test')).resolves.toBeUndefined();
    expect(inputsOf(UpdateCommand)[0]).toMatchObject({ UpdateExpression: 'ADD failures :minus, version :one', ConditionExpression: 'failures > :zero' });
    ddb.on(UpdateCommand).rejects(new Error('throttled'));
    await expect(giveBackFailure('password_pair', 'ann@acme.test')).rejects.toThrow('throttled');
  });
});

describe('link window slots', () => {
  const windowKey = platformKeys.throttle('link_account', hash, windowStart(at, THROTTLES.link_account));

  it('takes a slot only while the window has one, in its own window item', async () => {
    ddb.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    expect(await reserveSlot('link_account', 'ann@acme.test', at)).toBe(true);
    expect(await reserveSlot('link_account', 'ann@acme.test', at)).toBe(false);
    const u = inputsOf(UpdateCommand)[0]!;
    expect(u.Key).toEqual(windowKey);
    expect(u.ConditionExpression).toBe('attribute_not_exists(n) OR n < :max');
    expect(u.ExpressionAttributeValues).toMatchObject({ ':max': THROTTLES.link_account.max, ':ttl': windowStart(at, THROTTLES.link_account) + 15 * 60 + 60 });
  });

  it('gives a slot back only while one is taken; other errors surface', async () => {
    ddb.on(UpdateCommand).rejectsOnce(conditionFailed()).rejectsOnce(new Error('throttled'));
    await expect(releaseSlot('link_account', 'ann@acme.test', at)).resolves.toBeUndefined();
    await expect(releaseSlot('link_account', 'ann@acme.test', at)).rejects.toThrow('throttled');
    expect(inputsOf(UpdateCommand)[0]).toMatchObject({ Key: windowKey, ConditionExpression: 'n > :zero' });
  });
});
