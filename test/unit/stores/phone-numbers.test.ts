/** Phone numbers (shared/repositories/phone-numbers.ts): the platform claim, revisioned updates, the caller-choice read (caller-pool.ts). */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { batchGetItems } from '../../../shared/db/batch-get.js';
import { keys, platformKeys } from '../../../shared/db/keys.js';
import {
  callerNumberKeys,
  callerNumbersFrom,
  numbersVersionBump,
  numbersVersionKey,
  numbersVersionOf,
  readCallerNumbers,
} from '../../../shared/repositories/caller-pool.js';
import {
  activatePhoneNumber,
  claimPhoneNumber,
  getNumberClaim,
  getPhoneNumber,
  listPhoneNumbers,
  markNumberReleased,
  NumberChanged,
  NumberTaken,
  presentPhoneNumber,
  releaseUnprovisionedNumber,
} from '../../../shared/repositories/phone-numbers.js';
import { conditionFailed, ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const PHONE = '+14155550150';
const CLAIMED_AT = new Date('2026-11-18T15:00:00.000Z');
const claim = (tenantId = T) =>
  claimPhoneNumber({
    tenantId,
    phoneE164: PHONE,
    telephonyAccountId: 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA',
    acquired: 'bought',
    capabilities: ['voice'],
    at: CLAIMED_AT,
  });
beforeEach(() => table.reset());

describe('claiming a number', () => {
  it('stores the number as provisioning with its platform claim; a number claimed anywhere is NumberTaken', async () => {
    const n = await claim();
    expect(n).toMatchObject({
      status: 'provisioning',
      revision: 1,
      provider_sid: null,
      inbound_route_mode: 'agent',
      dials_count: 0,
      created_at: CLAIMED_AT.toISOString(),
    });
    expect(await getNumberClaim(PHONE)).toMatchObject({ tenant_id: T, number_id: n.id, phone_e164: PHONE });
    expect(await getPhoneNumber(T, n.id)).toMatchObject({ id: n.id, type: 'phone_number' });
    await expect(claim('ten_01JBBBBBBBBBBBBBBBBBBBBBBB')).rejects.toBeInstanceOf(NumberTaken);
  });

  it('reads a claim only for a well-formed number (callbacks pass unauthenticated To/From)', async () => {
    expect(await getNumberClaim('+1415#5550150')).toBeUndefined();
    expect(await getPhoneNumber(T, 'bad')).toBeUndefined();
    expect(table.sent).toEqual([]);
  });

  it('a refused number goes whole: the claim only if it is ours, the record only while provisioning', async () => {
    const n = await claim();
    ddb.on(TransactWriteCommand).resolves({});
    await releaseUnprovisionedNumber(n);
    const [c, r] = inputsOf(TransactWriteCommand)[1]!.TransactItems;
    expect(c.Delete).toMatchObject({
      Key: platformKeys.numberClaim(PHONE),
      ConditionExpression: 'number_id = :id',
      ExpressionAttributeValues: { ':id': n.id },
    });
    expect(r.Delete).toMatchObject({ Key: keys.phoneNumber(T, n.id), ConditionExpression: '#s = :provisioning' });
  });

  it("creating or deleting a number counts the tenant's numbers' membership version, in the same transaction", async () => {
    const version = () => numbersVersionOf(table.get(numbersVersionKey(T)));
    expect(version()).toBe(0);
    const n = await claim();
    expect(version()).toBe(1);
    expect(numbersVersionOf(table.get(numbersVersionKey('ten_01JBBBBBBBBBBBBBBBBBBBBBBB')))).toBe(0);
    // A claim refused (the number is someone's) changes nothing.
    await expect(claim()).rejects.toBeInstanceOf(NumberTaken);
    expect(version()).toBe(1);
    ddb.on(TransactWriteCommand).resolves({});
    await releaseUnprovisionedNumber(n);
    const items = inputsOf(TransactWriteCommand).at(-1)!.TransactItems;
    expect(items).toHaveLength(3);
    expect(items[2]).toEqual(numbersVersionBump(T));
  });
});

describe('updating a number', () => {
  it('activation moves provisioning → active at the revision read; a concurrent change is NumberChanged', async () => {
    const n = await claim();
    ddb.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    const at = new Date('2026-11-18T15:00:00.000Z');
    expect(await activatePhoneNumber(n, 'PN1', at)).toMatchObject({ status: 'active', provider_sid: 'PN1', assigned_at: at.toISOString(), revision: 2 });
    const u = inputsOf(UpdateCommand)[0]!;
    expect(u.ConditionExpression).toBe('attribute_exists(pk) AND #rev = :expected AND #st = :from');
    expect(u.ExpressionAttributeValues).toMatchObject({ ':expected': 1, ':from': 'provisioning' });
    await expect(activatePhoneNumber(n, 'PN1', at)).rejects.toBeInstanceOf(NumberChanged);
  });

  it('a release marks it released unconditionally, at the instant given', async () => {
    ddb.on(UpdateCommand).resolves({});
    await markNumberReleased(T, 'pnb_01JAAAAAAAAAAAAAAAAAAAAAAA', new Date('2026-11-18T15:00:00.000Z'));
    const u = inputsOf(UpdateCommand)[0]!;
    expect(u.ConditionExpression).toBeUndefined();
    expect(u.ExpressionAttributeValues).toEqual({ ':released': 'released', ':at': '2026-11-18T15:00:00.000Z' });
  });
});

describe('reads', () => {
  it("dials today count only on today's UTC day", async () => {
    const n = { ...(await claim()), dials_day: '2026-11-18', dials_count: 7 };
    expect(presentPhoneNumber(n, new Date('2026-11-18T23:59:00Z')).dials_today).toBe(7);
    expect(presentPhoneNumber(n, new Date('2026-11-19T00:00:00Z')).dials_today).toBe(0);
  });

  it('the caller choice reads every number projected, in one consistent Query, absent fields defaulted', async () => {
    table.put({ ...keys.phoneNumber(T, 'pnb_01JAAAAAAAAAAAAAAAAAAAAAAA'), id: 'pnb_01JAAAAAAAAAAAAAAAAAAAAAAA', status: 'active' });
    const [n] = await readCallerNumbers(T);
    expect(n).toMatchObject({ id: 'pnb_01JAAAAAAAAAAAAAAAAAAAAAAA', a2p_campaign_ref: null, daily_dial_cap: null, dials_day: null, dials_count: 0 });
    const q = table.sent[0]!.input;
    expect(q.ConsistentRead).toBe(true);
    expect(Object.values(q.ExpressionAttributeNames)).toContain('reputation_state');
  });

  it('numbers read by key come as the Query gives them, in the order of the ids; one missing → none', async () => {
    const [a, b] = ['pnb_01JAAAAAAAAAAAAAAAAAAAAAAA', 'pnb_01JBBBBBBBBBBBBBBBBBBBBBBB'];
    table.put({ ...keys.phoneNumber(T, a), id: a, status: 'active', provider_sid: 'PNx', type: 'phone_number' });
    table.put({ ...keys.phoneNumber(T, b), id: b, status: 'released', dials_day: '2026-11-18', dials_count: 3 });
    const items = await batchGetItems(callerNumberKeys(T, [b, a]));
    const queried = await readCallerNumbers(T);
    expect(callerNumbersFrom(items, T, [b, a])).toEqual([queried[1], queried[0]].map((n) => ({ ...n })));
    expect(callerNumbersFrom(items, T, [a, 'pnb_01JCCCCCCCCCCCCCCCCCCCCCCC'])).toBeUndefined();
  });

  it('lists numbers newest first, presented', async () => {
    const n = await claim();
    const page = await listPhoneNumbers(T, { limit: 5, filters: [] }, CLAIMED_AT);
    expect(page.data).toEqual([presentPhoneNumber(n, CLAIMED_AT)]);
  });
});
