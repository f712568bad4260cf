/** Number pools (shared/repositories/number-pools.ts): every member a voice number of the tenant, checked on each write. */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { campaignKeys, keys } from '../../../shared/db/keys.js';
import { ValidationError } from '../../../shared/errors.js';
import { createPool, getPool, listPools, updatePool } from '../../../shared/repositories/number-pools.js';
import { conditionFailed, ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

/** The instant the caller hands the store. */
const AT = new Date('2026-03-01T12:00:00.000Z');

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const VOICE = 'pnb_01JAAAAAAAAAAAAAAAAAAAAAAA';
const SMS = 'pnb_01JBBBBBBBBBBBBBBBBBBBBBBB';
const RELEASED = 'pnb_01JCCCCCCCCCCCCCCCCCCCCCCC';

beforeEach(() => {
  table.reset();
  table.put({ ...keys.phoneNumber(T, VOICE), id: VOICE, capabilities: ['voice', 'sms'], status: 'active' });
  table.put({ ...keys.phoneNumber(T, SMS), id: SMS, capabilities: ['sms'], status: 'active' });
  table.put({ ...keys.phoneNumber(T, RELEASED), id: RELEASED, capabilities: ['voice'], status: 'released' });
});

const issueOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  return (err as ValidationError).issues[0];
};

describe('number pools store', () => {
  it('creates a pool of voice numbers only if new, and reads it back', async () => {
    const pool = await createPool(T, { name: 'East', phone_number_ids: [VOICE] }, AT);
    expect(inputsOf(PutCommand)[0]).toMatchObject({
      ConditionExpression: 'attribute_not_exists(pk)',
      Item: { ...campaignKeys.pool(T, pool.id), type: 'number_pool', tenant_id: T },
    });
    expect(await getPool(T, pool.id)).toEqual(pool);
    expect(await getPool(T, 'bad')).toBeUndefined();
  });

  it('refuses (422 at the index) a number that is not a voice number of the tenant, released, unknown, or twice', async () => {
    expect(await issueOf(createPool(T, { name: 'x', phone_number_ids: [VOICE, SMS] }, AT))).toMatchObject({
      loc: ['body', 'phone_number_ids', 1],
      type: 'phone_number_not_found',
    });
    expect(await issueOf(createPool(T, { name: 'x', phone_number_ids: [RELEASED] }, AT))).toMatchObject({ loc: ['body', 'phone_number_ids', 0] });
    expect(await issueOf(createPool(T, { name: 'x', phone_number_ids: ['nope'] }, AT))).toMatchObject({ loc: ['body', 'phone_number_ids', 0] });
    expect(await issueOf(createPool(T, { name: 'x', phone_number_ids: [VOICE, VOICE] }, AT))).toMatchObject({
      loc: ['body', 'phone_number_ids', 1],
      type: 'duplicate_phone_number',
    });
    expect(inputsOf(PutCommand)).toHaveLength(0);
  });

  it('updates an existing pool only, setting just the fields given', async () => {
    expect(await updatePool(T, 'npl_01JAAAAAAAAAAAAAAAAAAAAAAA', { name: 'x' }, AT)).toBeUndefined();
    const pool = await createPool(T, { name: 'East', phone_number_ids: [VOICE] }, AT);
    ddb.on(UpdateCommand).resolves({ Attributes: { ...pool, name: 'West' } });
    expect(await updatePool(T, pool.id, { name: 'West' }, AT)).toMatchObject({ name: 'West' });
    const u = inputsOf(UpdateCommand)[0]!;
    expect(u).toMatchObject({ Key: campaignKeys.pool(T, pool.id), ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeNames: { '#name': 'name' } });
    expect(u.UpdateExpression).toBe('SET updated_at = :at, #name = :name');
    await expect(updatePool(T, pool.id, { phone_number_ids: [SMS] }, AT)).rejects.toBeInstanceOf(ValidationError);
    expect(inputsOf(UpdateCommand)).toHaveLength(1);
    // Deleted between the read and the write: absent (a 404), not a 500.
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await updatePool(T, pool.id, { name: 'Gone' }, AT)).toBeUndefined();
  });

  it('lists newest first with a cursor', async () => {
    const a = await createPool(T, { name: 'A', phone_number_ids: [VOICE] }, AT);
    const b = await createPool(T, { name: 'B', phone_number_ids: [VOICE] }, AT);
    const first = await listPools(T, { limit: 1 });
    expect(first.data.map((p) => p.id)).toEqual([b.id]);
    expect((await listPools(T, { limit: 1, cursor: first.next_cursor! })).data.map((p) => p.id)).toEqual([a.id]);
  });
});
