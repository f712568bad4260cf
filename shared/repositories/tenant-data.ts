/**
 * A tenant's data read by key shape, not by entity: what the account deletion sweeps and
 * counts (shared/accounts/). Generic on purpose, so item types added later are found too;
 * which items are kept, and why, is the deletion's rule (shared/accounts/retention.ts).
 */
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys, tenantPk } from '../db/keys.js';
import { countCollection, queryCollection, queryCount } from '../db/query.js';

type Item = Record<string, unknown>;

/** Every item of the tenant's main partition with this sort-key prefix (strongly consistent). */
export const tenantCollection = (tenantId: string, skPrefix: string): Promise<Item[]> =>
  queryCollection({ pk: tenantPk(tenantId), prefix: skPrefix }, { ConsistentRead: true });

/** How many items of the collection have `field` in `values`. */
export function countTenantCollection(tenantId: string, skPrefix: string, field: string, values: readonly string[]): Promise<number> {
  const placeholders = Object.fromEntries(values.map((v, i) => [`:v${i}`, v]));
  return countCollection(
    { pk: tenantPk(tenantId), prefix: skPrefix },
    { FilterExpression: `#f IN (${Object.keys(placeholders).join(', ')})`, ExpressionAttributeNames: { '#f': field }, ExpressionAttributeValues: placeholders },
  );
}

/** How many items a gsi1 partition holds (e.g. a tenant's contacts or calls index). */
export const countIndexPartition = (gsi1pk: string): Promise<number> =>
  queryCount({ IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': gsi1pk } });

/** The sandbox carrier's calls and messages live under this pk prefix and name their account, not a tenant. */
export const SANDBOX_ITEMS_PREFIX = `${platformKeys.sandboxAccount('AC0').pk}#`;

export interface SweepPage {
  segment: number;
  totalSegments: number;
  limit: number;
  /** Where the segment's previous page ended (null: from the start). */
  start: Item | null;
  /** Sandbox carrier accounts whose calls and messages go too. */
  sandboxAccounts: readonly string[];
}

/**
 * One page of one Scan segment: items whose pk is the tenant's (`TENANT#<t>`, `TENANT#<t>#…`),
 * that name it (`tenant_id`), or that belong to one of its sandbox accounts. The filter is
 * wide (begins_with); the caller checks each item exactly. `next` is null after the last page.
 */
export async function sweepPage(tenantId: string, q: SweepPage): Promise<{ items: Item[]; next: Item | null }> {
  const prefix = tenantPk(tenantId);
  const sandbox = q.sandboxAccounts;
  const sandboxFilter = sandbox.length ? ` OR (begins_with(pk, :sbx) AND account_sid IN (${sandbox.map((_, i) => `:sa${i}`).join(', ')}))` : '';
  const sandboxValues = sandbox.length ? { ':sbx': SANDBOX_ITEMS_PREFIX, ...Object.fromEntries(sandbox.map((sid, i) => [`:sa${i}`, sid])) } : {};
  const page = await db().send(
    new ScanCommand({
      TableName: tableName(),
      Segment: q.segment,
      TotalSegments: q.totalSegments,
      Limit: q.limit,
      ConsistentRead: true,
      FilterExpression: `pk = :p OR begins_with(pk, :pp) OR tenant_id = :t${sandboxFilter}`,
      ExpressionAttributeValues: { ':p': prefix, ':pp': `${prefix}#`, ':t': tenantId, ...sandboxValues },
      ...(q.start ? { ExclusiveStartKey: q.start } : {}),
    }),
  );
  return { items: page.Items ?? [], next: page.LastEvaluatedKey ?? null };
}

/** Write an item the deletion keeps (e.g. a suppressed number's keyed hash). */
export async function putRetainedItem(item: { pk: string; sk: string } & Item): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: item }));
}
