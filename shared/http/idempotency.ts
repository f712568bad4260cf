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
 * (`commitItem`), so the work and its idempotency record cannot disagree.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { RouteDefinition } from '../routes.js';
import { requestFingerprint } from '../idempotency/fingerprint.js';
import { claim, complete, completionUpdate, release, type IdempotencyScope } from '../idempotency/store.js';
import { logger } from '../observability.js';
import { conflict, ValidationError } from './errors.js';
import type { RouteResult } from './responses.js';

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

export async function runIdempotent(
  route: RouteDefinition,
  req: IdempotentRequest,
  work: () => Promise<RouteResult>,
): Promise<RouteResult> {
  if (route.idempotency === 'none') return work();
  const key = req.event.headers?.[HEADER];
  if (key === undefined || key === '') {
    if (route.idempotency === 'required') throw keyError('Field required', 'missing');
    return work();
  }
  if (!KEY_PATTERN.test(key)) throw keyError('Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is recommended)', 'string_pattern_mismatch', key);

  const scope: IdempotencyScope = { tenantId: req.principal.tenantId, routeId: route.id, key };
  const fingerprint = requestFingerprint({
    method: route.method,
    path: req.event.rawPath,
    query: req.query ?? null,
    body: req.body ?? null,
  });

  const claimed = await claim(scope, fingerprint);
  if (claimed.outcome !== 'claimed') {
    if (claimed.fingerprint !== fingerprint) {
      throw keyError('This Idempotency-Key was already used with a different request', 'idempotency_key_reused');
    }
    if (claimed.outcome === 'in_progress') {
      throw conflict('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later');
    }
    return {
      status: claimed.response.status,
      body: JSON.parse(claimed.response.body),
      headers: { 'idempotent-replay': 'true' },
    };
  }

  const owner = claimed.owner;
  const stored = (r: RouteResult) => ({ status: r.status, body: JSON.stringify(r.body) });
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
