/**
 * The LastEvaluatedKey loop, written once. A Query (or Scan) returns at most 1 MB a page;
 * these helpers follow the pages so a store never writes the loop again. `TableName`
 * defaults to the table.
 */
import {
  type AttributeValue,
  QueryCommand as RawQueryCommand,
  type QueryCommandInput as RawQueryCommandInput,
  type QueryCommandOutput as RawQueryCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { QueryCommand, type QueryCommandInput, type QueryCommandOutput, ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';

type Item = Record<string, unknown>;
export type QueryParams = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'> & { TableName?: string };
type ScanParams = Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'> & { TableName?: string };
type RawQueryParams = Omit<RawQueryCommandInput, 'TableName' | 'ExclusiveStartKey'> & { TableName?: string };

/** The loop itself: `read(start)` reads the page after `start` (none: the first); pages follow until no key is reported. */
async function* pagesFrom<K, P extends { LastEvaluatedKey?: K }>(read: (start: K | undefined) => Promise<P>, start?: K): AsyncGenerator<P> {
  let next = start;
  do {
    const page = await read(next);
    yield page;
    next = page.LastEvaluatedKey;
  } while (next);
}

/** Every page of a Query, in order (stops when DynamoDB reports no further key). */
export function queryPages(params: QueryParams, start?: Item): AsyncGenerator<QueryCommandOutput> {
  return pagesFrom((next) => db().send(new QueryCommand({ TableName: tableName(), ...params, ...(next ? { ExclusiveStartKey: next } : {}) })), start);
}

/**
 * Every page of a Query sent as the low-level command, items left as AttributeValues: for a
 * read that unmarshalls them itself (e.g. with wrapNumbers, so no float touches a number).
 */
export function rawQueryPages(params: RawQueryParams): AsyncGenerator<RawQueryCommandOutput> {
  return pagesFrom<Record<string, AttributeValue>, RawQueryCommandOutput>((next) =>
    db().send(new RawQueryCommand({ TableName: tableName(), ...params, ...(next ? { ExclusiveStartKey: next } : {}) })),
  );
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
  const pages = pagesFrom(
    (next) => db().send(new QueryCommand({ TableName: tableName(), ...params, ExclusiveStartKey: next, Limit: limitFor(items.length) })),
    start,
  );
  for await (const page of pages) {
    items.push(...(page.Items ?? []));
    if (items.length >= want) break;
  }
  return items;
}

/** Every item a Scan finds, across its pages (platform sweeps only: a Scan reads the whole table). */
export async function scanAll(params: ScanParams): Promise<Item[]> {
  const items: Item[] = [];
  const pages = pagesFrom((next) => db().send(new ScanCommand({ TableName: tableName(), ...params, ...(next ? { ExclusiveStartKey: next } : {}) })));
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
}

/**
 * A collection: the items of one partition whose sort key starts with a prefix (a tenant's
 * numbers, a call's events, a pack's documents), on the table or on an index (`index`: its
 * keys are `<index>pk` and `<index>sk`).
 */
export interface Collection {
  pk: string;
  prefix: string;
  index?: 'gsi1';
}

/** What a collection query may add: a filter, a projection, order, Limit, consistency (its own names beside `:pk`, `:prefix`). */
export type CollectionParams = Omit<QueryParams, 'KeyConditionExpression' | 'IndexName'>;

/** The Query of a collection: `pk = :pk AND begins_with(sk, :prefix)`, and what `params` adds. */
export function collectionQuery(c: Collection, params: CollectionParams = {}): QueryParams {
  const on = c.index ?? '';
  return {
    ...params,
    ...(c.index ? { IndexName: c.index } : {}),
    KeyConditionExpression: `${on}pk = :pk AND begins_with(${on}sk, :prefix)`,
    ExpressionAttributeValues: { ...params.ExpressionAttributeValues, ':pk': c.pk, ':prefix': c.prefix },
  };
}

/** Every item of a collection, across its pages. */
export const queryCollection = (c: Collection, params?: CollectionParams): Promise<Item[]> => queryAll(collectionQuery(c, params));

/** Every page of a collection, in order (a caller that stops early, or acts page by page). */
export const collectionPages = (c: Collection, params?: CollectionParams, start?: Item): AsyncGenerator<QueryCommandOutput> =>
  queryPages(collectionQuery(c, params), start);

/** The first page of a collection only: with `Limit`, the first `Limit` items in the order asked (the newest, the latest). */
export async function collectionHead(c: Collection, params: CollectionParams & { Limit: number }): Promise<Item[]> {
  const page = await db().send(new QueryCommand({ TableName: tableName(), ...collectionQuery(c, params) }));
  return page.Items ?? [];
}

/** How many items of a collection `params` keeps (its filter). */
export const countCollection = (c: Collection, params?: Omit<CollectionParams, 'Select'>): Promise<number> => queryCount(collectionQuery(c, params));

/** Every page of a collection with items left as AttributeValues (see rawQueryPages). */
export function rawCollectionPages(
  c: Omit<Collection, 'index'>,
  params: Omit<RawQueryParams, 'KeyConditionExpression' | 'IndexName'> = {},
): AsyncGenerator<RawQueryCommandOutput> {
  return rawQueryPages({
    ...params,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ...params.ExpressionAttributeValues, ':pk': { S: c.pk }, ':prefix': { S: c.prefix } },
  });
}

/** The projection of `fields` with every name aliased (some are reserved words). */
export function projectionOf(fields: readonly string[]): Pick<QueryCommandInput, 'ProjectionExpression' | 'ExpressionAttributeNames'> {
  return {
    ProjectionExpression: fields.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(fields.map((f, i) => [`#p${i}`, f])),
  };
}
