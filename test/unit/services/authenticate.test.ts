/** API key authentication (shared/auth/authenticate.ts) over the api-keys and tenants stores: one read, the same 401 for every failure. */
import { beforeEach, describe, expect, it } from 'vitest';
import { mintApiKey } from '../../../shared/auth/api-keys.js';
import { authenticate } from '../../../shared/auth/authenticate.js';
import { itemAt } from '../../../shared/db/batch-get.js';
import { keys } from '../../../shared/db/keys.js';
import { DomainError } from '../../../shared/errors.js';
import { apiKeyItem } from '../../../shared/repositories/api-keys.js';
import { tenantItem } from '../../../shared/repositories/tenants.js';
import { memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
let token: string;
let keyId: string;

beforeEach(async () => {
  table.reset();
  const minted = await mintApiKey({ tenantId: T, name: 'ci', role: 'admin', createdBy: { type: 'operator', id: null }, now: 'c' });
  token = minted.token;
  keyId = minted.record.id;
  table.put(apiKeyItem(minted.record));
  table.put(tenantItem({ id: T, name: 'Acme', status: 'active', created_at: 'c' }));
});

const refused = async (authorization: string | undefined) => {
  const err = await authenticate(authorization).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DomainError);
  expect(err).toMatchObject({ kind: 'unauthorized', detail: 'Missing or invalid API key' });
};

describe('authenticate', () => {
  it('a live key of a usable tenant is its principal, read in one BatchGetItem with the item the route asks for', async () => {
    const record = keys.idempotency(T, 'queueCall', 'k-1');
    table.put({ ...record, status: 'completed' });
    const out = await authenticate(`Bearer ${token}`, (tenantId) => [keys.idempotency(tenantId, 'queueCall', 'k-1')]);
    expect(out.principal).toEqual({ tenantId: T, type: 'api_key', keyId, keyName: 'ci', role: 'admin' });
    expect(itemAt(out.also, record)).toMatchObject({ status: 'completed' });
    expect(table.sent.map((s) => s.command)).toEqual(['BatchGetItem']);
  });

  it('the same 401 for no token, a malformed one, a wrong secret, an unknown or retired key', async () => {
    await refused(undefined);
    await refused('Bearer not-a-token');
    await refused(`Bearer ${token.slice(0, -2)}xx`);
    table.put({ ...table.get(keys.apiKey(T, keyId))!, ...keys.apiKey(T, keyId), status: 'retired' });
    await refused(`Bearer ${token}`);
    table.remove(keys.apiKey(T, keyId));
    await refused(`Bearer ${token}`);
  });

  it('a tenant being deleted (or deleted) refuses every key', async () => {
    for (const status of ['deleting', 'deleted'] as const) {
      table.put(tenantItem({ id: T, name: 'Acme', status, created_at: 'c' }));
      await refused(`Bearer ${token}`);
    }
  });
});
