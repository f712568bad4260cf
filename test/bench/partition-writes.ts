/**
 * Counting DynamoDB writes per partition key (bench only): a middleware on the document
 * client sees every Put, Update, Delete, each item of a TransactWriteItems and of a
 * BatchWriteItem. Ids in a key are folded to their kind (`TENANT#ten_…#CAMPAIGN#cmp_…` →
 * `TENANT#<ten>#CAMPAIGN#<cmp>`) only in the printed label; counting is per real key.
 * WCU is estimated from the bytes sent (an Update's resulting item is not seen: its
 * expression values stand in), 1 KB units, doubled inside a transaction.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface PartitionWrites {
  /** The partition key's label; for an item, `<pk> / <sk>`. */
  partition: string;
  writes: number;
  writesPerSecond: number;
  /** The most writes in any one-second window. */
  peakPerSecond: number;
  wcuPerSecond: number;
}

type Item = Record<string, unknown>;
const wcu = (thing: unknown, transactional: boolean) => Math.max(1, Math.ceil(JSON.stringify(thing ?? {}).length / 1024)) * (transactional ? 2 : 1);

/**
 * Starts counting; `stop(seconds)` removes the middleware and returns the 12 hottest partitions
 * and the 12 hottest items (one item cannot split over partitions, so its own rate is the limit that matters),
 * and every partition whose key matches `group` (the shards of one thing side by side, however cold).
 */
export function countWritesPerPartition(
  client: DynamoDBDocumentClient,
  top = 12,
): { stop: (seconds: number, group?: RegExp) => { partitions: PartitionWrites[]; items: PartitionWrites[]; group: PartitionWrites[] } } {
  const perKey = new Map<string, { at: number[]; wcu: number }>();
  const perItem = new Map<string, { at: number[]; wcu: number }>();
  const add = (map: Map<string, { at: number[]; wcu: number }>, key: string, units: number) => {
    const entry = map.get(key) ?? { at: [], wcu: 0 };
    entry.at.push(Date.now());
    entry.wcu += units;
    map.set(key, entry);
  };
  const note = (key: Item | undefined, units: number) => {
    const pk = key?.pk;
    if (typeof pk !== 'string') return;
    add(perKey, pk, units);
    add(perItem, `${pk} / ${String(key?.sk ?? '')}`, units);
  };
  const name = `benchPartitionWrites${Math.random().toString(36).slice(2)}`;
  // A write refused by its condition consumes capacity too: counted whatever the outcome.
  const count = (command: string, input: Item) => {
    if (input.TransactItems) {
      for (const t of input.TransactItems as Item[]) {
        const op = (t.Put ?? t.Update ?? t.Delete) as Item | undefined;
        if (op) note((op.Item ?? op.Key) as Item | undefined, wcu(op.Item ?? op.ExpressionAttributeValues, true));
      }
    } else if (input.RequestItems && command.startsWith('BatchWrite')) {
      for (const requests of Object.values(input.RequestItems as Record<string, Item[]>)) {
        for (const r of requests) {
          const w = (r.PutRequest ?? r.DeleteRequest) as Item | undefined;
          if (w) note((w.Item ?? w.Key) as Item | undefined, wcu(w.Item, false));
        }
      }
    } else if (/^(Put|Update|Delete)/.test(command)) {
      note((input.Item ?? input.Key) as Item | undefined, wcu(input.Item ?? input.ExpressionAttributeValues, false));
    }
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } finally {
        count(String(context.commandName ?? ''), args.input as Item);
      }
    },
    { step: 'initialize', name },
  );
  return {
    stop(seconds: number, group?: RegExp) {
      client.middlewareStack.remove(name);
      const grouped = new Map([...perKey].filter(([pk]) => group?.test(pk)));
      return { partitions: hottest(perKey, seconds, top), items: hottest(perItem, seconds, top), group: hottest(grouped, seconds, grouped.size) };
    },
  };
}

function hottest(perKey: Map<string, { at: number[]; wcu: number }>, seconds: number, top: number): PartitionWrites[] {
  return [...perKey.entries()]
    .map(([pk, e]) => {
      const sorted = e.at.sort((a, b) => a - b);
      let peak = 0;
      let lo = 0;
      for (let hi = 0; hi < sorted.length; hi++) {
        while (sorted[hi]! - sorted[lo]! >= 1000) lo++;
        peak = Math.max(peak, hi - lo + 1);
      }
      return { partition: label(pk), writes: sorted.length, writesPerSecond: sorted.length / seconds, peakPerSecond: peak, wcuPerSecond: e.wcu / seconds };
    })
    .sort((a, b) => b.peakPerSecond - a.peakPerSecond || b.writes - a.writes)
    .slice(0, top);
}

/** `ten_01J…` → `<ten>`: the key's shape, with the kind of each id (instants in a sort key too). */
const label = (pk: string) => pk.replace(/\b([a-z]{2,4})_[0-9A-Za-z]{10,}/g, '<$1>').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<instant>');
