/**
 * Number pools (beyond the spec; see docs/decisions/campaigns.md): a named set of the tenant's voice numbers a
 * campaign dials from. One item each in the tenant's partition (`NUMBER_POOL#<npl>`).
 * Every member must be one of the tenant's numbers with the `voice` capability (checked
 * on each write; a number released later simply stops being chosen by the dispatcher).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { campaignKeys } from '../db/keys.js';
import { invalid } from '../errors.js';
import { isId, newId } from '../ids.js';
import { queryPage } from '../pagination/page.js';
import type { NumberPool } from '../schemas/campaigns.js';
import { getPhoneNumber } from './phone-numbers.js';

const presentPool = (item: Record<string, unknown>): NumberPool => ({
  id: item.id as string,
  name: item.name as string,
  phone_number_ids: item.phone_number_ids as string[],
  created_at: item.created_at as string,
  updated_at: item.updated_at as string,
});

/** 422 at ["body","phone_number_ids",i] for each id that is not a voice number of the tenant. */
async function checkPoolNumbers(tenantId: string, ids: readonly string[]): Promise<void> {
  const numbers = await Promise.all(ids.map((id) => (isId(id) ? getPhoneNumber(tenantId, id) : Promise.resolve(undefined))));
  const issues = numbers.flatMap((n, i) => (n && n.capabilities.includes('voice' as never) && !['releasing', 'released'].includes(n.status) ? [] : [i]));
  const dup = ids.findIndex((id, i) => ids.indexOf(id) !== i);
  if (issues.length > 0)
    throw invalid(
      ['body', 'phone_number_ids', issues[0]!],
      'Each pool number must be a voice number of this tenant',
      'phone_number_not_found',
      ids[issues[0]!],
    );
  if (dup >= 0) throw invalid(['body', 'phone_number_ids', dup], 'A number appears twice in the pool', 'duplicate_phone_number', ids[dup]);
}

export async function createPool(tenantId: string, input: { name: string; phone_number_ids: string[] }, now: Date): Promise<NumberPool> {
  await checkPoolNumbers(tenantId, input.phone_number_ids);
  const at = now.toISOString();
  const pool = presentPool({ id: newId('npl'), ...input, created_at: at, updated_at: at });
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...campaignKeys.pool(tenantId, pool.id), type: 'number_pool', tenant_id: tenantId, ...pool },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return pool;
}

export async function getPool(tenantId: string, poolId: string): Promise<NumberPool | undefined> {
  if (!isId(poolId)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: campaignKeys.pool(tenantId, poolId), ConsistentRead: true }));
  return out.Item ? presentPool(out.Item) : undefined;
}

export async function updatePool(
  tenantId: string,
  poolId: string,
  input: { name?: string; phone_number_ids?: string[] },
  at: Date,
): Promise<NumberPool | undefined> {
  if (!(await getPool(tenantId, poolId))) return undefined;
  if (input.phone_number_ids) await checkPoolNumbers(tenantId, input.phone_number_ids);
  const sets = ['updated_at = :at'];
  const values: Record<string, unknown> = { ':at': at.toISOString() };
  if (input.name !== undefined) {
    sets.push('#name = :name');
    values[':name'] = input.name;
  }
  if (input.phone_number_ids !== undefined) {
    sets.push('phone_number_ids = :ids');
    values[':ids'] = input.phone_number_ids;
  }
  const out = await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: campaignKeys.pool(tenantId, poolId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: input.name !== undefined ? { '#name': 'name' } : undefined,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    )
    .catch((err: unknown) => {
      // Deleted between the read and the write: absent, as if the read had missed it.
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw err;
    });
  return out ? presentPool(out.Attributes!) : undefined;
}

export function listPools(tenantId: string, opts: { limit: number; cursor?: string }) {
  return queryPage({
    tenantId,
    scope: 'number_pools',
    skPrefix: campaignKeys.poolsPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: presentPool,
  });
}
