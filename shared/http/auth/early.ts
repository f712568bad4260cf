/** Starting a route's `early` reads (shared/http/route-auth.ts) from the request as sent. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { logger } from '../../observability.js';
import { isJsonMediaType, rawBody } from '../body.js';
import type { EarlyStart } from '../route-auth.js';

/** Bodies larger than this start no early reads (they would be parsed once more before the credential is proven). */
const EARLY_BODY_LIMIT = 32 * 1024;

/** The route's early reads; one that fails to start is simply not started (the work reads as it would without). */
export function startEarly(early: EarlyStart<unknown> | undefined, tenantId: string, event: APIGatewayProxyEventV2) {
  if (!early) return undefined;
  try {
    return early(tenantId, earlyBody(event));
  } catch (err) {
    logger.warn('early reads not started', { error: (err as Error).message });
    return undefined;
  }
}

/** The JSON body as sent (the body step parses and validates it properly later). */
function earlyBody(event: APIGatewayProxyEventV2): unknown {
  const raw = rawBody(event);
  if (raw === '' || raw.length > EARLY_BODY_LIMIT || !isJsonMediaType(event.headers?.['content-type'])) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
