import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { claimSandboxMessageStep, putSandboxMessageItem, readSandboxMessage } from '../../../shared/repositories/sandbox-messages.js';
import { conditionFailed, ddb, inputsOf } from '../../support/document-client-mock.js';

const SID = `SM${'c'.repeat(32)}`;
beforeEach(() => ddb.reset());

describe('sandbox-messages store', () => {
  it('puts a new message once and reads it back without keys', async () => {
    ddb.on(PutCommand).resolves({});
    const message = { sid: SID, body: 'hi' };
    await putSandboxMessageItem(message);
    expect(inputsOf(PutCommand)[0]).toMatchObject({ ConditionExpression: 'attribute_not_exists(pk)', Item: { type: 'sandbox_message', sid: SID, body: 'hi' } });
    ddb.on(GetCommand).resolves({ Item: { pk: 'p', sk: 's', type: 't', sid: SID } });
    expect(await readSandboxMessage(SID)).toEqual({ sid: SID });
    expect(inputsOf(GetCommand)[0]!.ConsistentRead).toBe(true);
  });

  it('applies a step once (conditional on the step), keeping the first send date', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { pk: 'p', sk: 's', type: 't', sid: SID, step: 1 } });
    expect(await claimSandboxMessageStep(SID, 0, { status: 'sent', error_code: null, error_message: null, date_sent: 'now' }, 'now')).toEqual({
      sid: SID,
      step: 1,
    });
    const [u] = inputsOf(UpdateCommand);
    expect(u!.ConditionExpression).toBe('#step = :step');
    expect(u!.UpdateExpression).toContain('date_sent = if_not_exists(date_sent, :sent)');
    expect(u!.ExpressionAttributeValues).toMatchObject({ ':step': 0, ':next': 1, ':status': 'sent', ':sent': 'now' });
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await claimSandboxMessageStep(SID, 0, { status: 'sent', error_code: null, error_message: null, date_sent: 'now' }, 'now')).toBeUndefined();
  });
});
