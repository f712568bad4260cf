/**
 * The LastEvaluatedKey loop, written once. A Query (or Scan) returns at most 1 MB a page;
 * these helpers follow the pages so a store never writes the loop again. `TableName`
 * defaults to the table.
 */
import { QueryCommand, type QueryCommandInput, type QueryCommandOutput, ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';

type Item = Record<string, unknown>;
export type QueryParams = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'> & { TableName?: string };
type ScanParams = Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'> & { TableName?: string };

/** Every page of a Query, in order (stops when DynamoDB reports no further key). */
export async function* queryPages(params: QueryParams, start?: Item): AsyncGenerator<QueryCommandOutput> {
  let next = start;
  do {
    const page = await db().send(new QueryCommand({ TableName: tableName(), ...params, ...(next ? { ExclusiveStartKey: next } : {}) }));
    yield page;
    next = page.LastEvaluatedKey;
  } while (next);
}

/** Every item a Query matches, across its pages. */
export async function queryAll(params: QueryParams): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(params)) items.push(...(page.Items ?? []));
  return items;
}

/** How many items a Query matches (Select COUNT, every page). */
export async function queryCount(params: Omit<QueryParams, 'Select'>): Promise<number> {
  let total = 0;
  for await (const page of queryPages({ ...params, Select: 'COUNT' })) total += page.Count ?? 0;
  return total;
}

/**
 * Items of a Query until at least `want` are held or the range ends (a filtered page reads
 * on, DynamoDB applying Limit before the filter). `limitFor(held)` sets each request's Limit.
 */
export async function queryAtLeast(params: QueryParams, want: number, limitFor: (held: number) => number, start?: Item): Promise<Item[]> {
  const items: Item[] = [];
  let next = start;
  do {
    const page = await db().send(new QueryCommand({ TableName: tableName(), ...params, ExclusiveStartKey: next, Limit: limitFor(items.length) }));
    items.push(...(page.Items ?? []));
    next = page.LastEvaluatedKey;
  } while (items.length < want && next);
  return items;
}

/** Every item a Scan finds, across its pages (platform sweeps only: a Scan reads the whole table). */
export async function scanAll(params: ScanParams): Promise<Item[]> {
  const items: Item[] = [];
  let next: Item | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: tableName(), ...params, ...(next ? { ExclusiveStartKey: next } : {}) }));
    items.push(...(page.Items ?? []));
    next = page.LastEvaluatedKey;
  } while (next);
  return items;
}

/** The projection of `fields` with every name aliased (some are reserved words). */
export function projectionOf(fields: readonly string[]): Pick<QueryCommandInput, 'ProjectionExpression' | 'ExpressionAttributeNames'> {
  return {
    ProjectionExpression: fields.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(fields.map((f, i) => [`#p${i}`, f])),
  };
}
