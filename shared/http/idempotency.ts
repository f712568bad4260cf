/**
 * Idempotency for a route, per its manifest mode (the design, IETF Idempotency-Key draft,
 * Stripe's behaviour):
 *   - required and missing → 422 ["header","idempotency-key"];
 *   - first request runs; its 2xx result is stored for 24 h;
 *   - same key + same request → the stored result, with Idempotent-Replay: true;
 *   - same key + different request → 422 ["header","idempotency-key"];
 *   - same key while the first is still running → 409;
 *   - validation failures never reach here (nothing stored); a failed request releases
 *     its claim so the client may retry with the same key.
 * Handlers whose work is one DynamoDB transaction may record the result inside it
 * (`commitItem`), so the work and its idempotency record cannot disagree. A route whose
 * ONLY write is that transaction may also skip the claim (`inTransaction`): the record is
 * read (with the credential when the factory can), the work runs, and its transaction
 * writes the completed record only if the key is still free — so two requests with one key
 * never both commit, and the one that loses answers the winner's stored result (or 409
 * while nothing is stored yet), exactly as a claim would have.
 */
import { createHash } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { canonicalJson } from '../canonical-json.js';
import { now as clockNow } from '../clock.js';
import { conflict, ValidationError } from '../errors.js';
import { logger } from '../observability.js';
import {
  type ClaimResult,
  claim,
  complete,
  completedRecordPut,
  completionUpdate,
  type IdempotencyScope,
  idempotencyRecordKey,
  putCompletedRecord,
  readRecord,
  recordOutcome,
  release,
} from '../repositories/idempotency.js';
import type { RouteDefinition } from '../routes.js';
import type { RouteResult } from './responses.js';

/**
 * What "the same request" means: SHA-256 of the canonical JSON (keys sorted at every depth) of
 * method, path, query and body, so key order never changes the hash.
 */
function requestFingerprint(parts: { method: string; path: string; query: unknown; body: unknown }): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface IdempotencyHandle {
  key: string;
  /** A transaction item that records `result` as this key's outcome. */
  commitItem(result: RouteResult): TransactItem;
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const HEADER = 'idempotency-key';

const keyError = (msg: string, type: string, input?: string) =>
  new ValidationError([{ loc: ['header', HEADER], msg, type, ...(input === undefined ? {} : { input }) }]);

/**
 * The part of a route request idempotency reads and the handle it attaches. Declared here,
 * not taken from the route factory, so the factory depends on this module and not back.
 */
export interface IdempotentRequest {
  event: { rawPath: string; headers?: Record<string, string | undefined> };
  principal: { tenantId: string };
  query: unknown;
  body: unknown;
  idempotency?: IdempotencyHandle;
}

/** How a route takes a key: a claim first (any work), or only inside the work's one transaction. */
export interface IdempotencyOptions {
  inTransaction?: boolean;
  /** The record as read with the credential (inTransaction): `item` undefined when absent. */
  prefetched?: { item: Record<string, unknown> | undefined };
}

/** The Idempotency-Key a request carries for `route`, when it is one the route honours and well formed. */
export function requestKey(route: RouteDefinition, headers: Record<string, string | undefined> | undefined): string | undefined {
  const key = headers?.[HEADER];
  return route.idempotency !== 'none' && key !== undefined && KEY_PATTERN.test(key) ? key : undefined;
}

/** The record's key for the read the factory joins to the credential's. */
export const prefetchKey = (route: RouteDefinition, tenantId: string, key: string) => idempotencyRecordKey({ tenantId, routeId: route.id, key });

/** The answer to a key already taken: a replay, or 422 (another request) / 409 (still running). */
function answerTaken(taken: Exclude<ClaimResult, { outcome: 'claimed' }>, fingerprint: string): RouteResult {
  if (taken.fingerprint !== fingerprint) {
    throw keyError('This Idempotency-Key was already used with a different request', 'idempotency_key_reused');
  }
  if (taken.outcome === 'in_progress') {
    throw conflict('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later');
  }
  return {
    status: taken.response.status,
    body: JSON.parse(taken.response.body),
    headers: { 'idempotent-replay': 'true' },
  };
}

const stored = (r: RouteResult) => ({ status: r.status, body: JSON.stringify(r.body) });

export async function runIdempotent(
  route: RouteDefinition,
  req: IdempotentRequest,
  work: () => Promise<RouteResult>,
  options: IdempotencyOptions = {},
): Promise<RouteResult> {
  if (route.idempotency === 'none') return work();
  const key = req.event.headers?.[HEADER];
  if (key === undefined || key === '') {
    if (route.idempotency === 'required') throw keyError('Field required', 'missing');
    return work();
  }
  if (!KEY_PATTERN.test(key))
    throw keyError('Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is recommended)', 'string_pattern_mismatch', key);

  const scope: IdempotencyScope = { tenantId: req.principal.tenantId, routeId: route.id, key };
  const fingerprint = requestFingerprint({
    method: route.method,
    path: req.event.rawPath,
    query: req.query ?? null,
    body: req.body ?? null,
  });
  // One instant for the whole request: the record's claim, expiry and lock are judged from its start.
  const at = clockNow().getTime();
  if (options.inTransaction) return runInTransaction(scope, fingerprint, req, work, options.prefetched, at);

  const claimed = await claim(scope, fingerprint, at);
  if (claimed.outcome !== 'claimed') return answerTaken(claimed, fingerprint);

  const owner = claimed.owner;
  req.idempotency = { key, commitItem: (r) => ({ Update: completionUpdate(scope, owner, stored(r)) }) };

  let result: RouteResult;
  try {
    result = await work();
  } catch (err) {
    await release(scope, owner).catch((e) => logger.warn('idempotency release failed', e as Error));
    throw err;
  }
  if (result.status >= 200 && result.status < 300) {
    if (!result.idempotencyCommitted) {
      await complete(scope, owner, stored(result)).catch((e) => logger.warn('idempotency completion failed', e as Error));
    }
  } else {
    await release(scope, owner).catch((e) => logger.warn('idempotency release failed', e as Error));
  }
  return result;
}

/** No claim: the work's transaction writes the record if the key is still free (a failed request leaves nothing to release). */
async function runInTransaction(
  scope: IdempotencyScope,
  fingerprint: string,
  req: IdempotentRequest,
  work: () => Promise<RouteResult>,
  prefetched: IdempotencyOptions['prefetched'],
  at: number,
): Promise<RouteResult> {
  const seen = recordOutcome(prefetched ? prefetched.item : await readRecord(scope), at);
  if (seen.outcome !== 'free') return answerTaken(seen, fingerprint);
  req.idempotency = { key: scope.key, commitItem: (r) => ({ Put: completedRecordPut(scope, fingerprint, stored(r), at) }) };
  let result: RouteResult;
  try {
    result = await work();
  } catch (err) {
    // Cancelled: perhaps because another request with this key committed first; then its result is the answer.
    if (err instanceof TransactionCanceledException) {
      const now = recordOutcome(await readRecord(scope), at);
      if (now.outcome !== 'free') return answerTaken(now, fingerprint);
    }
    throw err;
  }
  if (result.status >= 200 && result.status < 300 && !result.idempotencyCommitted) {
    await putCompletedRecord(scope, fingerprint, stored(result), at).catch((e) => logger.warn('idempotency completion failed', e as Error));
  }
  return result;
}
