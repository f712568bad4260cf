/** Users (shared/repositories/users.ts): the sign-in read, the login email bound to one user, and a new password ending sessions. */
import { createHash } from 'node:crypto';
import { BatchWriteCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { keys, platformKeys } from '../../../shared/db/keys.js';
import { enableSignIn, findLogin, getSignInUser, LoginEmailTaken, listUsers, userEmailGuard, userItem } from '../../../shared/repositories/users.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const U = 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA';
const user = { id: U, email: 'ann@acme.test', name: null, role: 'admin' as const, status: 'active' as const, created_at: 'c', updated_at: 'u' };
const loginKey = platformKeys.loginEmail(createHash('sha256').update('ann@acme.test').digest('hex'));
const at = new Date('2026-11-18T15:00:00.000Z');

beforeEach(() => {
  table.reset();
  table.put({ ...userItem(T, user), password_hash: 'h' });
});

describe('users store', () => {
  it('the email guard is keyed by the lower-cased address', () => {
    expect(userEmailGuard(T, { ...user, email: 'Ann@Acme.TEST' })).toEqual({ ...keys.userEmail(T, 'ann@acme.test'), type: 'user_email', user_id: U });
  });

  it('reads the sign-in user with absent fields as null; an unknown one is undefined', async () => {
    expect(await getSignInUser(T, U)).toEqual({ ...user, tenant_id: T, password_hash: 'h', password_set_at: null, email_verified_at: null });
    expect(await getSignInUser(T, 'usr_01JBBBBBBBBBBBBBBBBBBBBBBB')).toBeUndefined();
  });

  it('finds the login by the hash of the trimmed, lower-cased email, never by the address', async () => {
    table.put({ ...loginKey, tenant_id: T, user_id: U });
    expect(await findLogin('  Ann@Acme.test ')).toEqual({ tenant_id: T, user_id: U });
    expect(await findLogin('bob@acme.test')).toBeUndefined();
    expect(JSON.stringify(inputsOf(GetCommand))).not.toContain('acme.test');
  });

  it('binds the email to the user in the same transaction as the change; a new password revokes sessions', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    ddb.on(QueryCommand).resolves({ Items: [{ pk: 'p', sk: 'SESSION' }] });
    ddb.on(BatchWriteCommand).resolves({});
    const out = await enableSignIn(T, U, { passwordHash: 'new' }, at);
    expect(out).toMatchObject({ password_hash: 'new', password_set_at: at.toISOString() });
    const [update, login] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(update.Update).toMatchObject({ Key: keys.user(T, U), ConditionExpression: 'attribute_exists(pk)' });
    expect(update.Update.UpdateExpression).toBe('SET updated_at = :at, password_hash = :h, password_set_at = :at');
    expect(login.Put).toMatchObject({
      Item: { ...loginKey, tenant_id: T, user_id: U },
      ConditionExpression: 'attribute_not_exists(pk) OR (tenant_id = :t AND user_id = :u)',
    });
    expect(inputsOf(BatchWriteCommand)).toHaveLength(1);
  });

  it('a verified email alone keeps the sessions; an email signing in as someone else is LoginEmailTaken', async () => {
    ddb
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejectsOnce(transactionCancelled(['None', 'ConditionalCheckFailed']));
    expect(await enableSignIn(T, U, { emailVerifiedAt: 'v' }, at)).toMatchObject({ email_verified_at: 'v', password_hash: 'h' });
    expect(inputsOf(QueryCommand)).toHaveLength(0);
    await expect(enableSignIn(T, U, { emailVerifiedAt: 'v' }, at)).rejects.toBeInstanceOf(LoginEmailTaken);
    await expect(enableSignIn(T, 'usr_01JBBBBBBBBBBBBBBBBBBBBBBB', {}, at)).rejects.toThrow(/does not exist/);
  });

  it('lists users newest first without their secrets', async () => {
    table.put({ ...userItem(T, { ...user, id: 'usr_01JBBBBBBBBBBBBBBBBBBBBBBB' }), password_hash: 'h' });
    const page = await listUsers(T, { limit: 1 });
    expect(page.data.map((u) => u.id)).toEqual(['usr_01JBBBBBBBBBBBBBBBBBBBBBBB']);
    expect(page.data[0]).not.toHaveProperty('password_hash');
    expect(page.has_more).toBe(true);
  });
});
