/** Answering policies (shared/repositories/answering-policies.ts): a new immutable version and the number's move, one transaction. */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentKeys, answeringPolicyKeys, keys } from '../../../shared/db/keys.js';
import { getCurrentPolicy, getPolicyVersion, PolicyWriteRefused, writePolicy } from '../../../shared/repositories/answering-policies.js';
import type { PhoneNumberRecord } from '../../../shared/repositories/phone-numbers.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const N = 'pnb_01JAAAAAAAAAAAAAAAAAAAAAAA';
const REP = 'rep_01JAAAAAAAAAAAAAAAAAAAAAAA';
const now = new Date('2026-11-18T15:00:00.000Z');
const number = {
  id: N,
  tenant_id: T,
  telephony_account_id: 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA',
  status: 'active',
  capabilities: ['voice'],
  policy_version: 2,
  revision: 7,
} as unknown as PhoneNumberRecord;
const content = { timezone: 'America/New_York', business_hours: {} as never, holiday_dates: [], open_steps: [], closed_steps: [] };
beforeEach(() => table.reset());

describe('answering policies store', () => {
  it('reads a version by number (consistent); the current one is the number’s policy_version', async () => {
    table.put({ ...answeringPolicyKeys.version(T, N, 2), id: 'apl_1', version: 2 });
    expect(await getPolicyVersion(T, N, 2)).toMatchObject({ id: 'apl_1', version: 2 });
    expect(await getCurrentPolicy(number)).toMatchObject({ version: 2 });
    expect(await getCurrentPolicy({ ...number, policy_version: null })).toBeUndefined();
    expect(await getPolicyVersion(T, N, 0)).toBeUndefined();
    expect(await getPolicyVersion(T, N, 1.5)).toBeUndefined();
    expect(table.sent.map((s) => s.input.ConsistentRead)).toEqual([true, true]);
  });

  it('writes the next version only if new, moves the number (re-checking eligibility), checks the account and every rep', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const previous = { id: 'apl_1', created_at: 'first' } as never;
    const { policy, number: next } = await writePolicy(number, previous, content, [REP], now);
    expect(policy).toMatchObject({ id: 'apl_1', version: 3, created_at: 'first', updated_at: now.toISOString() });
    expect(next).toMatchObject({ inbound_route_mode: 'policy', policy_version: 3, revision: 8 });
    const [move, put, account, rep] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(move.Update.Key).toEqual(keys.phoneNumber(T, N));
    expect(move.Update.ConditionExpression).toContain('#rev = :expected');
    expect(move.Update.ConditionExpression).toContain('AND #elig_status = :active AND contains(capabilities, :voice) AND reputation_state <> :burned');
    expect(put.Put).toMatchObject({
      Item: { ...answeringPolicyKeys.version(T, N, 3), type: 'answering_policy' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(account.ConditionCheck.Key).toEqual(keys.telephonyAccount(T, number.telephony_account_id));
    expect(rep.ConditionCheck).toMatchObject({ Key: agentKeys.rep(T, REP), ConditionExpression: '#s = :active AND attribute_type(transfer_number, :string)' });
  });

  it('names the condition that refused the write', async () => {
    const refusal = async (codes: string[]) => {
      ddb.on(TransactWriteCommand).rejects(transactionCancelled(codes));
      return writePolicy(number, undefined, content, [REP, 'rep_01JBBBBBBBBBBBBBBBBBBBBBBB'], now).catch((e: unknown) => e as PolicyWriteRefused);
    };
    expect(await refusal(['ConditionalCheckFailed', 'None', 'None', 'None', 'None'])).toMatchObject({ what: 'number' });
    expect(await refusal(['None', 'ConditionalCheckFailed', 'None', 'None', 'None'])).toMatchObject({ what: 'version' });
    expect(await refusal(['None', 'None', 'ConditionalCheckFailed', 'None', 'None'])).toMatchObject({ what: 'account' });
    expect(await refusal(['None', 'None', 'None', 'None', 'ConditionalCheckFailed'])).toMatchObject({ what: 'rep', repId: 'rep_01JBBBBBBBBBBBBBBBBBBBBBBB' });
    const conflict = await refusal(['TransactionConflict', 'None', 'None', 'None', 'None']);
    expect(conflict).not.toBeInstanceOf(PolicyWriteRefused);
  });
});
