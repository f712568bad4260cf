/** Sign-in throttling (shared/sessions/throttle.ts) over the throttles, users and tenants stores. */
import { createHash } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { platformKeys } from '../../../shared/db/keys.js';
import { tenantItem } from '../../../shared/repositories/tenants.js';
import { userItem } from '../../../shared/repositories/users.js';
import { admitPasswordAttempt, reserveAll, signInUser } from '../../../shared/sessions/throttle.js';
import { conditionFailed, ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const at = new Date('2026-11-18T15:00:00.000Z');
const hash = (s: string) => createHash('sha256').update(s.toLowerCase()).digest('hex');
beforeEach(() => table.reset());

describe('reserveAll', () => {
  it('takes a slot in each scope in order; a refusal gives back those taken and is 429 with the wait', async () => {
    ddb.on(UpdateCommand).callsFake(async (input) => {
      // The source's window is full; every other slot is free.
      if (input.UpdateExpression.startsWith('ADD n :one') && String(input.Key.pk).includes('link_source')) throw conditionFailed();
      return {};
    });
    const err = await reserveAll(
      [
        ['link_account', 'ann@acme.test'],
        ['link_source', '203.0.113.9'],
      ],
      at,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'rate_limited', code: 'too_many_attempts', hints: { retryAfterSeconds: expect.any(Number) } });
    const sent = inputsOf(UpdateCommand).map((u) => u.UpdateExpression);
    expect(sent).toEqual(['ADD n :one SET #ttl = :ttl, #type = :type', 'ADD n :one SET #ttl = :ttl, #type = :type', 'ADD n :minus']);
    expect(String(inputsOf(UpdateCommand)[2]!.Key.pk)).toContain('link_account');
  });
});

describe('admitPasswordAttempt', () => {
  it('counts the attempt in all three scopes in one transaction, each put conditioned on what was read', async () => {
    await admitPasswordAttempt('ann@acme.test', '203.0.113.9', at);
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items).toHaveLength(3);
    expect(items.every((i: { Put: { ConditionExpression: string } }) => i.Put.ConditionExpression === 'attribute_not_exists(pk)')).toBe(true);
    expect(table.get(platformKeys.throttleBackoff('password_account', hash('ann@acme.test')))).toMatchObject({ failures: 1, version: 1 });
    await admitPasswordAttempt('ann@acme.test', '203.0.113.9', new Date(at.getTime() + 1));
    expect(table.get(platformKeys.throttleBackoff('password_account', hash('ann@acme.test')))).toMatchObject({ failures: 2, version: 2 });
  });

  it('an account under its delay is 429 with the longest wait, and nothing is written', async () => {
    table.put({
      ...platformKeys.throttleBackoff('password_account', hash('ann@acme.test')),
      failures: 20,
      last_at: at.getTime() - 1000,
      next_at: at.getTime() + 59_000,
      version: 20,
    });
    await expect(admitPasswordAttempt('ann@acme.test', '203.0.113.9', at)).rejects.toMatchObject({
      code: 'too_many_attempts',
      hints: { retryAfterSeconds: 59 },
    });
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('signInUser', () => {
  const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
  const U = 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA';
  const user = { id: U, email: 'ann@acme.test', name: null, role: 'admin' as const, status: 'active' as const, created_at: 'c', updated_at: 'u' };

  it('the active user of a live tenant the email signs in as; an unknown email makes the same three reads', async () => {
    table.put({ ...platformKeys.loginEmail(createHash('sha256').update('ann@acme.test').digest('hex')), tenant_id: T, user_id: U });
    table.put(userItem(T, user));
    table.put(tenantItem({ id: T, name: 'Acme', status: 'active', created_at: 'c' }));
    expect(await signInUser('Ann@Acme.test')).toMatchObject({ id: U, tenant_id: T });
    expect(table.sent).toHaveLength(3);
    table.forgetSent();
    expect(await signInUser('bob@acme.test')).toBeUndefined();
    expect(table.sent).toHaveLength(3);
    table.put(tenantItem({ id: T, name: 'Acme', status: 'deleting', created_at: 'c' }));
    expect(await signInUser('ann@acme.test')).toBeUndefined();
    table.put(tenantItem({ id: T, name: 'Acme', status: 'active', created_at: 'c' }));
    table.put(userItem(T, { ...user, status: 'deactivated' }));
    expect(await signInUser('ann@acme.test')).toBeUndefined();
  });
});
