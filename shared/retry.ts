/**
 * The one retry/backoff policy: full jitter (a uniformly random pause in [0, min(cap, base ·
 * 2^(attempt−1))), AWS Architecture Blog "Exponential Backoff And Jitter"), bounded attempts.
 * Every loop that retries — a lost DynamoDB race, unprocessed batch items, a transient HTTP
 * failure — takes one of the named policies below, so "how hard do we retry" is read here.
 * A product rule that happens to be a schedule (the webhook redelivery schedule a tenant is
 * promised) is not a backoff and stays a policy of its own (shared/webhooks/retry-schedule.ts).
 *
 * Why ours and not p-retry: our loops retry on a decision (re-read, decide, write; a lost
 * race is a return value as often as a throw) rather than "call again on throw", most run in
 * Lambdas where a dependency is bundle weight, and all they need from a library is this
 * formula and a bound — a dozen lines with no package to keep up to date.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface RetryPolicy {
  /** The first retry's pause bound, in ms. */
  baseMs: number;
  /** No pause bound grows past this, in ms. */
  capMs: number;
  /** Tries in all (the first one included). */
  attempts: number;
}

/** A lost conditional transaction: read again and decide again (cheap; contention is brief). */
export const RACE: RetryPolicy = { baseMs: 20, capMs: 1_000, attempts: 8 };
/** Items a batch read or write left unprocessed (throttling: back off longer). */
export const UNPROCESSED: RetryPolicy = { baseMs: 25, capMs: 2_000, attempts: 10 };
/** A transaction cancelled only by TransactionConflict, resent as is by the shared client. */
export const CONFLICT: RetryPolicy = { baseMs: 10, capMs: 200, attempts: 5 };
/** A transient failure of another service over HTTP (S3, a carrier). */
export const TRANSIENT_HTTP: RetryPolicy = { baseMs: 200, capMs: 2_000, attempts: 3 };

/** The pause before retry `attempt` (1-based: the pause after the attempt-th try failed). */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const bound = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * bound);
}

/** Sleeps before retry `attempt` under `policy`. */
export function backoff(policy: RetryPolicy, attempt: number): Promise<void> {
  return sleep(backoffMs(policy, attempt));
}

/** Whether another try is allowed after `attempt` tries failed. */
export const mayRetry = (policy: RetryPolicy, attempt: number): boolean => attempt < policy.attempts;
