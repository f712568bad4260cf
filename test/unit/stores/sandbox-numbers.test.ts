import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { deleteSandboxNumberItem, putSandboxNumberItem, sandboxNumberOfSid, setSandboxNumberRouting } from '../../../shared/repositories/sandbox-numbers.js';
import { ddb, inputsOf, transactionCancelled } from '../../support/document-client-mock.js';

const number = { sid: `PN${'d'.repeat(32)}`, account_sid: `AC${'e'.repeat(32)}`, phone_number: '+14155550100' };
beforeEach(() => ddb.reset());

describe('sandbox-numbers store', () => {
  it('creates the number and its SID pointer together, both only if absent; false when taken', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await putSandboxNumberItem(number)).toBe(true);
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items.map((i: { Put: { ConditionExpression: string } }) => i.Put.ConditionExpression)).toEqual([
      'attribute_not_exists(pk)',
      'attribute_not_exists(pk)',
    ]);
    expect(items[1].Put.Item).toMatchObject({ type: 'sandbox_number_sid', phone_number: number.phone_number });
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    expect(await putSandboxNumberItem(number)).toBe(false);
  });

  it('follows a SID pointer to the number', async () => {
    ddb.on(GetCommand).resolves({ Item: { phone_number: number.phone_number } });
    expect(await sandboxNumberOfSid(number.sid)).toBe(number.phone_number);
    ddb.on(GetCommand).resolves({});
    expect(await sandboxNumberOfSid(number.sid)).toBeUndefined();
  });

  it('routes and releases only while the account holds the number', async () => {
    ddb.on(UpdateCommand).resolves({});
    ddb.on(TransactWriteCommand).resolves({});
    await setSandboxNumberRouting(number, {
      voice_url: 'https://x',
      voice_method: 'POST',
      status_callback: null,
      status_callback_method: 'POST',
      sms_url: null,
      sms_method: 'POST',
      updated_at: 'now',
    });
    expect(inputsOf(UpdateCommand)[0]).toMatchObject({
      ConditionExpression: 'account_sid = :acct',
      ExpressionAttributeValues: { ':acct': number.account_sid, ':vu': 'https://x' },
    });
    await deleteSandboxNumberItem(number);
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items[0].Delete.ConditionExpression).toBe('account_sid = :acct');
    expect(JSON.stringify(items[1].Delete.Key)).toContain(number.sid);
  });
});
