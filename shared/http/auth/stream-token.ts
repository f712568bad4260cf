/** `stream_token`: the voice runtime's signed call token, valid only for the path's {call_id} (shared/auth/stream-token.ts). */
import { authenticateStreamToken, type StreamPrincipal } from '../../auth/stream-token.js';
import { logger } from '../../observability.js';
import type { RouteAuth } from '../route-auth.js';
import { startEarly } from './early.js';

export const streamToken: RouteAuth<{ stream: StreamPrincipal }> = {
  modes: ['stream_token'],
  async prove(_route, event, { early }) {
    // A route's early reads start once the token's signature and call are proven, beside the
    // call's window check; a spent token is refused before the work could see what they read.
    const { claims: stream, alongside: started } = await authenticateStreamToken(
      event.headers?.authorization,
      event.pathParameters?.call_id,
      undefined,
      early ? async (claims) => startEarly(early, claims.tenant_id, event) : undefined,
    );
    logger.appendKeys({ tenant_id: stream.tenant_id, call_id: stream.call_id });
    return { fields: { stream }, ...(started ? { early: { handle: started.handle, items: new Map() } } : {}) };
  },
};
