/** The credential read (shared/repositories/api-keys.ts readCredential): key, tenant and the request's other items in one BatchGetItem. */
import { beforeEach, describe, expect, it } from 'vitest';
import { itemAt } from '../../../shared/db/batch-get.js';
import { keys } from '../../../shared/db/keys.js';
import { readCredential } from '../../../shared/repositories/api-key-credentials.js';
import { memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const KEY = 'key_01JAAAAAAAAAAAAAAAAAAAAAAA';

beforeEach(() => {
  table.reset();
  table.put({ ...keys.apiKey(T, KEY), type: 'api_key', id: KEY, tenant_id: T, name: 'ci', role: 'admin', status: 'active', secret_hash: 'ab' });
  table.put({ ...keys.tenant(T), type: 'tenant', id: T, name: 'Acme', status: 'active', created_at: '2026-11-01T00:00:00Z', extra: 'not presented' });
});

describe('readCredential', () => {
  it('reads the key, its tenant and the asked item in one strongly consistent BatchGetItem', async () => {
    const record = keys.idempotency(T, 'queueCall', 'k-1');
    table.put({ ...record, type: 'idempotency', status: 'completed' });
    const read = await readCredential(T, KEY, [record]);
    expect(table.sent.map((s) => s.command)).toEqual(['BatchGetItem']);
    expect(Object.values(table.sent[0]!.input.RequestItems as Record<string, { ConsistentRead: boolean }>)[0]!.ConsistentRead).toBe(true);
    expect(read.key).toMatchObject({ id: KEY, status: 'active' });
    expect(read.tenant).toEqual({ id: T, name: 'Acme', status: 'active', created_at: '2026-11-01T00:00:00Z' });
    expect(itemAt(read.also, record)).toMatchObject({ status: 'completed' });
    expect([...read.also.keys()]).toHaveLength(1); // the key and the tenant are not handed on
  });

  it('answers absent items as undefined, and reads nothing for a malformed key id', async () => {
    table.remove(keys.tenant(T));
    const read = await readCredential(T, KEY, [keys.idempotency(T, 'queueCall', 'absent')]);
    expect(read.tenant).toBeUndefined();
    expect(read.also.size).toBe(0);
    table.forgetSent();
    expect(await readCredential(T, 'not-an-id')).toEqual({ key: undefined, tenant: undefined, also: new Map() });
    expect(table.sent).toEqual([]);
  });
});
