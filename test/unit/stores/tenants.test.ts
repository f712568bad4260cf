/** The tenant record (shared/repositories/tenants.ts): its read, the move to deleting and the tombstone. */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../../shared/db/keys.js';
import { getTenant, markTenantDeleting, putTenantTombstone, tenantDeletingItem, tenantItem, tenantUsable } from '../../../shared/repositories/tenants.js';
import { ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const tenant = { id: T, name: 'Acme', status: 'active' as const, created_at: '2026-11-01T00:00:00Z' };
beforeEach(() => table.reset());

describe('tenants store', () => {
  it('reads the tenant strongly consistently, without its keys or bookkeeping', async () => {
    table.put({ ...tenantItem(tenant), deletion_started_at: 'x' });
    expect(await getTenant(T)).toEqual(tenant);
    expect(await getTenant('ten_01JBBBBBBBBBBBBBBBBBBBBBBB')).toBeUndefined();
    expect(table.sent[0]!.input).toMatchObject({ Key: keys.tenant(T), ConsistentRead: true });
  });

  it('moves to deleting unless already a tombstone, alone or in a transaction', async () => {
    const item = tenantDeletingItem(T).Update;
    expect(item.ConditionExpression).toBe('attribute_not_exists(#s) OR #s <> :deleted');
    expect(item.ExpressionAttributeValues).toEqual({ ':deleting': 'deleting', ':deleted': 'deleted' });
    ddb.on(UpdateCommand).resolves({});
    await markTenantDeleting(T);
    expect(inputsOf(UpdateCommand)[0]).toEqual(item);
  });

  it('replaces the record by its tombstone unconditionally', async () => {
    await putTenantTombstone({ ...keys.tenant(T), status: 'deleted' });
    expect(inputsOf(PutCommand)[0]!.ConditionExpression).toBeUndefined();
    expect(table.get(keys.tenant(T))).toEqual({ ...keys.tenant(T), status: 'deleted' });
  });

  it('only an active or suspended tenant is usable', () => {
    expect(tenantUsable(tenant)).toBe(true);
    expect(tenantUsable({ status: 'suspended' })).toBe(true);
    expect(tenantUsable({ status: 'deleting' })).toBe(false);
    expect(tenantUsable({ status: 'deleted' })).toBe(false);
    expect(tenantUsable(undefined)).toBe(false);
  });
});
