import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { putSandboxAccountItem, readSandboxAccount } from '../../../shared/repositories/sandbox-accounts.js';
import { conditionFailed, ddb, inputsOf } from '../../support/document-client-mock.js';

const SID = `AC${'f'.repeat(32)}`;
beforeEach(() => ddb.reset());

describe('sandbox-accounts store', () => {
  it('puts an account only if its SID is new, and an existing SID is not an error', async () => {
    ddb.on(PutCommand).rejects(conditionFailed());
    const account = { sid: SID, status: 'active' };
    await expect(putSandboxAccountItem(account)).resolves.toBeUndefined();
    expect(inputsOf(PutCommand)[0]).toMatchObject({ ConditionExpression: 'attribute_not_exists(pk)', Item: { type: 'sandbox_account', sid: SID } });
    ddb.on(PutCommand).rejects(new Error('throttled'));
    await expect(putSandboxAccountItem({ sid: SID })).rejects.toThrow('throttled');
  });

  it('reads an account by SID', async () => {
    ddb.on(GetCommand).resolves({ Item: { sid: SID } });
    expect(await readSandboxAccount(SID)).toEqual({ sid: SID });
    expect(JSON.stringify(inputsOf(GetCommand)[0]!.Key)).toContain(SID);
  });
});
