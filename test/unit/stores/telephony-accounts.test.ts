/** Telephony accounts (shared/repositories/telephony-accounts.ts): sealed credentials, revisioned updates, the carrier SID hint. */
process.env.CREDENTIALS_KEY ??= Buffer.alloc(32, 7).toString('base64');

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { keys, platformKeys } from '../../../shared/db/keys.js';
import { callerAccountOf, getCallerAccount, readCallerAccounts } from '../../../shared/repositories/caller-pool.js';
import {
  AccountChanged,
  carrierAccountUses,
  createTelephonyAccount,
  getTelephonyAccount,
  listTelephonyAccounts,
  openCredentials,
  openSandboxCredentials,
  updateTelephonyAccount,
} from '../../../shared/repositories/telephony-accounts.js';
import { conditionFailed, ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const ID = 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA';
const creds = { account_sid: `AC${'a'.repeat(32)}`, auth_token: 'secret-token' };
const AT = new Date('2026-11-18T15:00:00.000Z');
beforeEach(() => table.reset());

describe('telephony accounts store', () => {
  it('stores a pending account with its credentials sealed to it, and notes the carrier SID it uses', async () => {
    const a = await createTelephonyAccount({ id: ID, tenantId: T, mode: 'byo', provider: 'twilio', credentials: creds, at: AT });
    expect(a).toMatchObject({ verification_status: 'pending', revision: 1, ftc_san_refs: [], sandbox_credentials_sealed: null, created_at: AT.toISOString() });
    expect(JSON.stringify(table.get(keys.telephonyAccount(T, ID)))).not.toContain('secret-token');
    expect(await openCredentials(a)).toEqual(creds);
    expect(await openSandboxCredentials(a)).toBeNull();
    // Sealed to this tenant and account: another's context does not open it.
    await expect(openCredentials({ ...a, id: 'tac_01JBBBBBBBBBBBBBBBBBBBBBBB' })).rejects.toThrow();
    expect(table.get(platformKeys.carrierAccountUse(creds.account_sid, T, ID))).toMatchObject({ tenant_id: T, account_id: ID });
    expect(await carrierAccountUses(creds.account_sid)).toEqual([{ tenant_id: T, account_id: ID }]);
    await expect(createTelephonyAccount({ id: ID, tenantId: T, mode: 'byo', provider: 'twilio', at: AT })).rejects.toThrow();
  });

  it('looks up carrier SID uses only for a well-formed SID', async () => {
    expect(await carrierAccountUses('AC#1')).toEqual([]);
    expect(table.sent).toEqual([]);
  });

  it('updates at the revision read; a concurrent change is AccountChanged', async () => {
    const a = await createTelephonyAccount({ id: ID, tenantId: T, mode: 'managed', provider: 'twilio', at: AT });
    ddb.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    const at = new Date('2026-03-01T12:00:00.000Z');
    expect(await updateTelephonyAccount(a, { verification_status: 'verified' }, at)).toMatchObject({
      verification_status: 'verified',
      revision: 2,
      updated_at: at.toISOString(),
    });
    const [sent] = inputsOf(UpdateCommand);
    expect(sent).toMatchObject({ ConditionExpression: 'attribute_exists(pk) AND #rev = :expected', ExpressionAttributeValues: { ':expected': 1 } });
    // The caller's instant is what is stored.
    expect(Object.values(sent!.ExpressionAttributeValues)).toContain(at.toISOString());
    await expect(updateTelephonyAccount(a, { verification_status: 'verified' }, at)).rejects.toBeInstanceOf(AccountChanged);
  });

  it('reads and lists without the sealed credentials; the caller facts default their SAN refs', async () => {
    await createTelephonyAccount({ id: ID, tenantId: T, mode: 'managed', provider: 'twilio', credentials: creds, at: AT });
    expect(await getTelephonyAccount(T, ID)).toMatchObject({ id: ID });
    expect(await getTelephonyAccount(T, 'bad')).toBeUndefined();
    const page = await listTelephonyAccounts(T, { limit: 5 });
    expect(page.data[0]).toMatchObject({ id: ID, credentials_stored: true, telephony_minutes_metered: true });
    expect(JSON.stringify(page)).not.toContain('sealed');
    expect(await readCallerAccounts(T)).toEqual([{ id: ID, verification_status: 'pending', ftc_san_refs: [], provider: 'twilio' }]);
    expect(callerAccountOf({ id: 'x', verification_status: 'verified', provider: 'twilio' }).ftc_san_refs).toEqual([]);
    // One account as the caller choice reads it: projected, strongly consistent.
    expect(await getCallerAccount(T, ID)).toEqual({ id: ID, verification_status: 'pending', ftc_san_refs: [], provider: 'twilio' });
    expect(await getCallerAccount(T, 'bad')).toBeUndefined();
    const get = table.sent.filter((x) => x.command === 'GetItem').at(-1)!.input;
    expect([get.ConsistentRead, Object.values(get.ExpressionAttributeNames ?? {})]).toEqual([true, ['id', 'verification_status', 'ftc_san_refs', 'provider']]);
  });
});
