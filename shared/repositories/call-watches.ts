/**
 * Watch items: the platform's promise that every call ends and every ended call is scored
 * (the design: "never silently lost", "a reconciler closes what the carrier never
 * reported"). Each is written in the transaction that starts what it watches and deleted
 * in the one that finishes it; the call names its current watch (`unfinished_watch_at`,
 * `analysis_watch_at`: the instant in the watch's sort key), so whoever finishes it knows
 * which item to delete. Keys: `dispatchKeys.unfinished` / `dispatchKeys.analysis`
 * (shared/db/keys.ts), sharded by the call id, sorted by instant.
 *
 *   unfinished watch  put with the CallSid link (dispatch's recordProviderSid, or a callback
 *                     that linked it first); deleted by the terminal transition. One older
 *                     than CALL_UNFINISHED_AFTER_MS is the unfinished-call reconciler's.
 *   analysis watch    put by every transition that ends a call; deleted when the analysis is
 *                     stored. One older than ANALYSIS_RESEND_AFTER_MS gets its request re-sent.
 *
 * A watch left behind by a race (a link committed just after the call ended, a re-arm racing
 * the store) is harmless: whoever reads it finds its reason gone and deletes it.
 */
import { DeleteCommand, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { callKeys, DISPATCH_SHARDS, dispatchKeys } from '../db/keys.js';
import { failedConditionIndex } from '../db/transact-write.js';
import { logger } from '../observability.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type CallRef = { tenant_id: string; id: string };

/** What a watch item holds besides its keys. */
export interface WatchItem {
  pk: string;
  sk: string;
  tenant_id: string;
  call_id: string;
  /** The instant in its sort key (re-armed watches move it on). */
  since: string;
  /** Unfinished watches: when the CallSid was linked (the hard bound counts from it). */
  linked_at?: string;
}

export function unfinishedWatchPut(call: CallRef, since: string, linkedAt: string = since): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...dispatchKeys.unfinished(since, call.tenant_id, call.id),
        type: 'unfinished_watch',
        tenant_id: call.tenant_id,
        call_id: call.id,
        since,
        linked_at: linkedAt,
      },
    },
  };
}
export const unfinishedWatchDelete = (tenantId: string, callId: string, since: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: dispatchKeys.unfinished(since, tenantId, callId) },
});

export function analysisWatchPut(call: CallRef, since: string): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...dispatchKeys.analysis(since, call.tenant_id, call.id), type: 'analysis_watch', tenant_id: call.tenant_id, call_id: call.id, since },
    },
  };
}
export const analysisWatchDelete = (tenantId: string, callId: string, since: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: dispatchKeys.analysis(since, tenantId, callId) },
});

/** Delete one watch item on its own (its reason is gone). */
export async function dropWatch(watch: Pick<WatchItem, 'pk' | 'sk'>): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: watch.pk, sk: watch.sk } }));
}

/** Items handled per shard per run (the next run takes the rest). */
const WATCH_PAGE = 100;

/** Items of a shard partition with sk < `before` (ISO prefix order = time order), oldest first. */
export async function watchesOlderThan(pk: string, before: string, limit = WATCH_PAGE): Promise<Record<string, unknown>[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk < :before',
      ExpressionAttributeValues: { ':pk': pk, ':before': before },
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

/**
 * The reconcilers' loop: every shard's items older than `bound`, oldest first (WATCH_PAGE a
 * shard), each handed to `handle`; one that throws is logged and left for the next run, and
 * `outOfTime` (asked before each item: the caller's clock and deadline) ends a run early. Answers how many `handle` counted.
 */
export async function sweepWatches(
  partition: (shard: number) => string,
  bound: string,
  handle: (item: Record<string, unknown>) => Promise<boolean>,
  what: string,
  outOfTime: () => boolean = () => false,
): Promise<number> {
  let counted = 0;
  for (let shard = 0; shard < DISPATCH_SHARDS; shard++) {
    for (const item of await watchesOlderThan(partition(shard), bound)) {
      if (outOfTime()) return counted; // the next run takes the rest
      try {
        if (await handle(item)) counted++;
      } catch (err) {
        logger.warn(`${what}: not handled; the next run retries`, {
          tenant_id: item.tenant_id,
          call_id: item.call_id,
          message_id: item.message_id,
          error: (err as Error)?.message,
        });
      }
    }
  }
  return counted;
}

/**
 * What a transition that ENDS a call adds to its transaction: the analysis watch (and the
 * call's `analysis_watch_at`), and the deletion of its unfinished watch when it has one
 * (`unfinished_watch_at` → null). `fields` go on the call's Update.
 */
export function endOfCallWatches(
  call: CallRef & { unfinished_watch_at?: string | null },
  at: Date,
): { items: TransactItem[]; fields: Record<string, unknown> } {
  const since = at.toISOString();
  const items = [analysisWatchPut(call, since)];
  const fields: Record<string, unknown> = { analysis_watch_at: since };
  if (call.unfinished_watch_at) {
    items.push(unfinishedWatchDelete(call.tenant_id, call.id, call.unfinished_watch_at));
    fields.unfinished_watch_at = null;
  }
  return { items, fields };
}

/**
 * Move a call's watch from `watch.since` to `next` in one transaction: the call's pointer
 * field (only while it still names this watch, plus `andCondition`), the old item deleted,
 * the new one put. When the call no longer names this watch (finished meanwhile, or it names
 * another), this one is extra and is dropped. True when it was re-armed.
 */
export async function rearmWatch(
  watch: WatchItem,
  next: string,
  opts: { field: 'unfinished_watch_at' | 'analysis_watch_at'; andCondition?: string; remove: TransactItem; put: TransactItem },
): Promise<boolean> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: callKeys.call(watch.tenant_id, watch.call_id),
              UpdateExpression: `SET ${opts.field} = :next`,
              ConditionExpression: `${opts.field} = :since${opts.andCondition ? ` AND ${opts.andCondition}` : ''}`,
              ExpressionAttributeValues: { ':next': next, ':since': watch.since },
            },
          },
          opts.remove,
          opts.put,
        ],
      }),
    );
    return true;
  } catch (err) {
    if (failedConditionIndex(err) !== 0) throw err;
    await dropWatch(watch);
    return false;
  }
}
