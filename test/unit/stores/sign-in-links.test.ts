import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { putSignInLink, spendSignInLinkItem } from '../../../shared/repositories/sign-in-links.js';
import { ddb, inputsOf } from '../../support/document-client-mock.js';

const T1 = 'ten_01hzy3v7q8a9b0c1d2e3f4g5h6';
const U1 = 'usr_01hzy3v7q8a9b0c1d2e3f4g5h6';
const link = { token_hash: 'h', created_at: 'c', expires_at: 'e', ttl: 9 };
beforeEach(() => ddb.reset());

describe('sign-in-links store', () => {
  it("writes the user's link, or a decoy of the same shape under the platform key", async () => {
    ddb.on(PutCommand).resolves({});
    await putSignInLink({ owner: { tenant_id: T1, user_id: U1 }, ...link });
    await putSignInLink({ owner: null, ...link });
    const [real, decoy] = inputsOf(PutCommand).map((i) => i.Item);
    expect(real).toMatchObject({ type: 'signin_link', tenant_id: T1, user_id: U1, token_hash: 'h', ttl: 9 });
    expect(real!.sk).toBe(`SIGNIN_LINK#${U1}`);
    expect(decoy).toMatchObject({ type: 'signin_link_decoy', token_hash: 'h', ttl: 9 });
    expect(String(decoy!.pk)).toMatch(/^PLATFORM#/);
    expect(Object.keys(decoy!).sort()).toEqual(Object.keys(real!).sort());
  });

  it('spends a link only with its token, unspent and unexpired', () => {
    const item = spendSignInLinkItem(T1, U1, 'h', new Date('2026-01-01T00:00:00Z'));
    expect(item.Update).toMatchObject({
      ConditionExpression: 'token_hash = :h AND attribute_not_exists(spent_at) AND expires_at > :at',
      ExpressionAttributeValues: { ':h': 'h', ':at': '2026-01-01T00:00:00.000Z' },
    });
  });
});
