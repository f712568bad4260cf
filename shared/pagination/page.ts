/**
 * Cursor pages over one tenant's collection (the API conventions).
 *
 * DynamoDB applies Limit before FilterExpression, so a filtered page keeps reading until
 * it holds limit + 1 matches or the collection ends; the extra match is how has_more is
 * known exactly (true only when another matching item exists).
 *
 * A page also ends early, with has_more and a cursor, before its items pass
 * PAGE_BYTE_BUDGET bytes of JSON: API Gateway and Lambda cap a response at 6 MB, and 200
 * large items (a contact may carry 32 KB of attributes) would pass it. A page always holds
 * at least one item, and every item is far below the budget.
 */
import { belongsToTenant, isPlatformPartition, tenantPk } from '../db/keys.js';
import { collectionQuery, queryAtLeast } from '../db/query.js';
import { invalid } from '../errors.js';
import { appSecrets } from '../secrets.js';
import { type CursorKey, decodeCursor, encodeCursor, InvalidCursor } from './cursor.js';
import { type FilterCondition, filterScope, toFilterExpression } from './filters.js';

/** Most bytes of JSON a page's items may total (docs/decisions/api-conventions.md). */
export const PAGE_BYTE_BUDGET = 1024 * 1024;

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

export interface PageQuery<T> {
  tenantId: string;
  /** Names the collection; part of what a cursor is bound to. */
  scope: string;
  skPrefix: string;
  /** The table partition to read; default the tenant's own (`TENANT#<t>`). Must belong to the tenant. */
  partition?: string;
  /**
   * Read a gsi1 collection instead of the tenant's own partition: the gsi1pk value,
   * which must belong to the tenant (checked). Index reads are eventually consistent.
   */
  indexPartition?: string;
  /**
   * Read a platform-owned collection (`PLATFORM#…`, e.g. templates) instead of a tenant
   * partition. The cursor is still bound to the reading tenant.
   */
  platformPartition?: string;
  newestFirst: boolean;
  limit: number;
  cursor?: string;
  filters?: FilterCondition[];
  /**
   * A filter the grammar cannot express (e.g. a status derived at read time), ANDed with
   * the declared filters; `scope` names it for cursor binding.
   */
  extraFilter?: { expression: string; names: Record<string, string>; values: Record<string, unknown>; scope: string };
  /** Attributes to read; the keys the cursor needs are always added. */
  projection?: readonly string[];
  map: (item: Record<string, unknown>) => T;
  /** Read the base table strongly consistent (a page that must show a write just made). */
  consistentRead?: boolean;
  /** Override PAGE_BYTE_BUDGET (tests). */
  byteBudget?: number;
}

/** The key DynamoDB needs to resume after `item`: table keys, plus index keys on an index. */
const cursorKeyOf = (item: Record<string, unknown>, onIndex: boolean): CursorKey => ({
  pk: item.pk as string,
  sk: item.sk as string,
  ...(onIndex ? { gsi1pk: item.gsi1pk as string, gsi1sk: item.gsi1sk as string } : {}),
});

export async function queryPage<T>(q: PageQuery<T>): Promise<Page<T>> {
  const { cursorKey } = await appSecrets();
  const filters = q.filters ?? [];
  const scope = `${q.scope}?${filterScope(filters)}${q.extraFilter ? `&${q.extraFilter.scope}` : ''}`;
  let start: CursorKey | undefined;
  if (q.cursor) {
    try {
      start = decodeCursor(cursorKey, q.tenantId, scope, q.cursor);
    } catch (err) {
      if (err instanceof InvalidCursor) throw invalid(['query', 'cursor'], 'Invalid cursor: it was not issued for this query', 'cursor_invalid', q.cursor);
      throw err;
    }
  }

  const filter = toFilterExpression(filters);
  const onIndex = q.indexPartition !== undefined;
  const partition = q.platformPartition ?? q.indexPartition ?? q.partition ?? tenantPk(q.tenantId);
  if (q.platformPartition !== undefined) {
    if (!isPlatformPartition(partition) || onIndex || q.partition !== undefined) throw new Error('a platform page reads one PLATFORM# table partition');
  } else if (!belongsToTenant(partition, q.tenantId)) throw new Error("a page may only read the tenant's own partitions");
  const names: Record<string, string> = { ...filter.ExpressionAttributeNames, ...q.extraFilter?.names };
  const clauses = [filter.FilterExpression, q.extraFilter?.expression].filter((c): c is string => Boolean(c));
  let projection: string | undefined;
  if (q.projection) {
    const keyAttrs = onIndex ? ['pk', 'sk', 'gsi1pk', 'gsi1sk'] : ['pk', 'sk'];
    projection = [...new Set([...keyAttrs, ...q.projection])]
      .map((a, i) => {
        names[`#p${i}`] = a;
        return `#p${i}`;
      })
      .join(', ');
  }
  const base = collectionQuery(onIndex ? { index: 'gsi1', pk: partition, prefix: q.skPrefix } : { pk: partition, prefix: q.skPrefix }, {
    ExpressionAttributeValues: { ...filter.ExpressionAttributeValues, ...q.extraFilter?.values },
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(clauses.length ? { FilterExpression: clauses.join(' AND ') } : {}),
    ...(projection ? { ProjectionExpression: projection } : {}),
    ScanIndexForward: !q.newestFirst,
    ...(q.consistentRead && !onIndex ? { ConsistentRead: true } : {}),
  });

  const want = q.limit + 1;
  // Unfiltered reads fetch exactly what is missing; filtered reads fetch wider.
  const items = await queryAtLeast(base, want, (held) => (clauses.length ? Math.max(100, want - held) : want - held), start);

  const { data, taken } = withinBudget(items.slice(0, q.limit), q.map, q.byteBudget ?? PAGE_BYTE_BUDGET);
  const hasMore = items.length > taken;
  const last = items[taken - 1];
  const nextCursor = hasMore && last ? encodeCursor(cursorKey, q.tenantId, scope, cursorKeyOf(last, onIndex)) : null;
  return { data, next_cursor: nextCursor, has_more: hasMore };
}

/** Map items in order until the next one would take the page past `budget` bytes (at least one is kept). */
function withinBudget<T>(items: Record<string, unknown>[], map: (item: Record<string, unknown>) => T, budget: number): { data: T[]; taken: number } {
  const data: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const mapped = map(item);
    const size = Buffer.byteLength(JSON.stringify(mapped), 'utf8') + 1;
    if (data.length > 0 && bytes + size > budget) break;
    data.push(mapped);
    bytes += size;
  }
  return { data, taken: data.length };
}
