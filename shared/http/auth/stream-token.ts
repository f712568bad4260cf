/** `stream_token`: the voice runtime's signed call token, valid only for the path's {call_id} (shared/auth/stream-token.ts). */
import { authenticateStreamToken, type StreamPrincipal } from '../../auth/stream-token.js';
import { logger } from '../../observability.js';
import type { RouteAuth } from '../route-auth.js';

export const streamToken: RouteAuth<{ stream: StreamPrincipal }> = {
  modes: ['stream_token'],
  async prove(_route, event) {
    const stream = await authenticateStreamToken(event.headers?.authorization, event.pathParameters?.call_id);
    logger.appendKeys({ tenant_id: stream.tenant_id, call_id: stream.call_id });
    return { fields: { stream } };
  },
};
