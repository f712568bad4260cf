/**
 * The account's calls-per-second ceiling (cps_limit), across every dispatch worker at once:
 * one counter item per (telephony account, epoch second), `ADD count 1` only while
 * `count < limit`, expiring by TTL. A full second makes the worker wait for the next one
 * (bounded: past MAX_WAIT_MS it gives up, nothing dialled, and the dispatcher hands the call
 * back to the scheduler with a due item a second on, so a long backlog never dead-letters).
 * The counter is taken before the dial's transition, so a slot is never held by a call that
 * is not dialled — at worst a slot is wasted (the transition then found the call taken).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { now } from '../clock.js';
import { db, tableName } from '../db/client.js';
import { dispatchKeys } from '../db/keys.js';

/** An account whose carrier never told us its ceiling dials at one call a second. */
export const DEFAULT_CPS = 1;
const MAX_WAIT_MS = 20_000;

export class DialSlotsBusy extends Error {}

export const cpsOf = (limit: number | null | undefined): number => (typeof limit === 'number' && limit > 0 ? Math.floor(limit) : DEFAULT_CPS);
/** The second a dial at `ms` counts in, and how long until the next one starts (pure). */
export const secondOf = (ms: number): number => Math.floor(ms / 1000);
export const msUntilNextSecond = (ms: number): number => 1000 - (ms % 1000);
/** The least time `n` dials can take at `cps` a second, starting at the top of a second: ⌈n / cps⌉ − 1 full seconds. */
export const minimumSpanSeconds = (n: number, cps: number): number => Math.max(0, Math.ceil(n / cpsOf(cps)) - 1);

export async function acquireDialSlot(tenantId: string, accountId: string, cpsLimit: number | null, opts: { maxWaitMs?: number } = {}): Promise<number> {
  const limit = cpsOf(cpsLimit);
  const deadline = Date.now() + (opts.maxWaitMs ?? MAX_WAIT_MS);
  for (;;) {
    const at = now().getTime();
    const second = secondOf(at);
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: dispatchKeys.cps(tenantId, accountId, second),
          UpdateExpression: 'ADD #count :one SET #ttl = if_not_exists(#ttl, :ttl), #type = if_not_exists(#type, :type)',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl', '#type': 'type' },
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': second + 3600, ':type': 'cps_counter' },
        }),
      );
      return second;
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
    if (Date.now() >= deadline) throw new DialSlotsBusy(`account ${accountId}: no dial slot within ${opts.maxWaitMs ?? MAX_WAIT_MS} ms at ${limit} cps`);
    await new Promise((r) => setTimeout(r, msUntilNextSecond(now().getTime()) + Math.floor(Math.random() * 20)));
  }
}
