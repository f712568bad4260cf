import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { googleEventsOf, grantRevoked, putGoogleEvent, spendOauthCode, takeInsertFault } from '../../../shared/repositories/sandbox-google.js';
import { conditionFailed, ddb, inputsOf } from '../../support/document-client-mock.js';

beforeEach(() => ddb.reset());

describe('sandbox-google store', () => {
  it('spends a code once (conditional on used = false)', async () => {
    ddb.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    expect(await spendOauthCode('h1')).toBe(true);
    expect(await spendOauthCode('h1')).toBe(false);
    expect(inputsOf(UpdateCommand)[0]).toMatchObject({ ConditionExpression: 'used = :f', ExpressionAttributeValues: { ':t': true, ':f': false } });
  });

  it('takes an injected fault once (delete returning the old item)', async () => {
    ddb
      .on(DeleteCommand)
      .resolvesOnce({ Attributes: { pk: 'x' } })
      .resolvesOnce({});
    expect(await takeInsertFault('evt1')).toBe(true);
    expect(await takeInsertFault('evt1')).toBe(false);
    expect(inputsOf(DeleteCommand)[0]!.ReturnValues).toBe('ALL_OLD');
  });

  it("puts an event only under a new id; reads the grant's events and its revocation", async () => {
    ddb.on(PutCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    expect(await putGoogleEvent('grant_1', { id: 'e1', start: 'a', end: 'b' })).toBe(true);
    expect(await putGoogleEvent('grant_1', { id: 'e1', start: 'a', end: 'b' })).toBe(false);
    expect(inputsOf(PutCommand)[0]).toMatchObject({ ConditionExpression: 'attribute_not_exists(pk)', Item: { type: 'sandbox_gcal_event', id: 'e1' } });
    ddb.on(QueryCommand).resolves({ Items: [{ start: 'a', end: 'b' }] });
    expect(await googleEventsOf('grant_1')).toEqual([{ start: 'a', end: 'b' }]);
    ddb.on(GetCommand).resolves({ Item: { grant_id: 'grant_1' } });
    expect(await grantRevoked('grant_1')).toBe(true);
    ddb.on(GetCommand).resolves({});
    expect(await grantRevoked('grant_1')).toBe(false);
  });
});
