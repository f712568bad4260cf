/**
 * Several items of the table in ONE strongly consistent BatchGetItem (100 keys at most):
 * the stores that answer one request from items of different entities read them together
 * rather than one GetItem each. Unprocessed keys are asked again (throttling only), each
 * retry one more call. batchGetMany reads any number of keys, 100 to a call.
 */
import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { backoff, UNPROCESSED } from '../retry.js';
import { db, tableName } from './client.js';
import { projectionOf } from './query.js';

export interface ItemKey {
  pk: string;
  sk: string;
}

/** The items found, by `pk|sk` (see itemAt); an absent item is simply not there. */
export type ItemsByKey = Map<string, Record<string, unknown>>;

const id = (k: { pk: unknown; sk: unknown }) => `${String(k.pk)}|${String(k.sk)}`;

export const itemAt = (items: ItemsByKey, key: ItemKey): Record<string, unknown> | undefined => items.get(id(key));

/** Only the items of `keys` (a read shared by several parts of a request hands each its own). */
export const pickItems = (items: ItemsByKey, keys: readonly ItemKey[]): ItemsByKey =>
  new Map(keys.flatMap((k) => (items.has(id(k)) ? [[id(k), items.get(id(k))!] as const] : [])));

/** Read only these attributes (the key is always read: it files the item). */
export interface BatchGetOptions {
  fields?: readonly string[];
}

/** The most keys one BatchGetItem may name. */
export const MAX_BATCH_KEYS = 100;

export async function batchGetItems(keys: readonly ItemKey[], opts: BatchGetOptions = {}): Promise<ItemsByKey> {
  const unique = [...new Map(keys.map((k) => [id(k), { pk: k.pk, sk: k.sk }])).values()];
  if (unique.length > MAX_BATCH_KEYS) throw new RangeError(`batchGetItems reads at most ${MAX_BATCH_KEYS} keys, not ${unique.length}`);
  const projection = opts.fields ? projectionOf([...new Set(['pk', 'sk', ...opts.fields])]) : {};
  const found: ItemsByKey = new Map();
  let pending: Record<string, unknown>[] | undefined = unique;
  for (let attempt = 0; pending?.length; attempt++) {
    if (attempt > 0) await backoff(UNPROCESSED, attempt);
    const out: BatchGetCommandOutput = await db().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true, ...projection } } }),
    );
    for (const item of out.Responses?.[tableName()] ?? []) found.set(id(item as ItemKey), item);
    pending = out.UnprocessedKeys?.[tableName()]?.Keys;
  }
  return found;
}

/** batchGetItems for any number of keys: one BatchGetItem per 100, in turn. */
export async function batchGetMany(keys: readonly ItemKey[], opts: BatchGetOptions = {}): Promise<ItemsByKey> {
  const unique = [...new Map(keys.map((k) => [id(k), k])).values()];
  const found: ItemsByKey = new Map();
  for (let i = 0; i < unique.length; i += 100) for (const [k, item] of await batchGetItems(unique.slice(i, i + 100), opts)) found.set(k, item);
  return found;
}
