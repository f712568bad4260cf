/**
 * The AWS voice runtime host's wiring for $default and $disconnect (functions/relay/): the
 * API Gateway Management API for this WebSocket API's connections, the control plane per call
 * (its token minted again from the stored claims, so no credential is stored), the
 * deployment's reply model, the version's granted tools and its compiled system prompt —
 * what `npm start`'s relay serves too.
 */
import { DeleteConnectionCommand, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { now } from '../clock.js';
import { logger } from '../observability.js';
import { callTokenKey } from '../telephony/call-token-key.js';
import { verifyStreamToken } from '../telephony/call-tokens.js';
import { createControlPlane, packRetrieval } from './control-plane.js';
import { platformReplyModel } from './llm/platform.js';
import type { ReplyModel } from './ports.js';
import { compileSystemPrompt } from './prompt.js';
import { management } from './relay-connections.js';
import { type RelayHostDeps, reMintedToken } from './relay-host.js';
import { voiceRuntimeSettings } from './runtime-settings.js';
import { grantedTools } from './tools.js';

/** The deployment's reply model (the registry's chain) unless a test passes its own. */
export async function relayHostDeps(endpoint: string, model: ReplyModel = platformReplyModel()): Promise<RelayHostDeps> {
  const key = await callTokenKey();
  const client = management(endpoint);
  return {
    model,
    send: async (connectionId, message) => {
      await client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(JSON.stringify(message)) }));
    },
    disconnect: async (connectionId) => {
      await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId })).catch((err: unknown) => {
        if (!(err instanceof GoneException)) throw err;
      });
    },
    verifyToken: async (token, at) => {
      const checked = verifyStreamToken(key, token, at);
      return checked.ok ? checked.claims : null;
    },
    controlPlaneFor: (claims) => createControlPlane({ token: reMintedToken(key, claims, now()), callId: claims.call_id }),
    buildTools: grantedTools,
    systemPrompt: compileSystemPrompt,
    retrieveFor: packRetrieval,
    settings: voiceRuntimeSettings(),
    now,
    log: {
      info: (message, fields) => logger.info(message, { ...fields }),
      warn: (message, fields) => logger.warn(message, { ...fields }),
      error: (message, fields) => logger.error(message, { ...fields }),
    },
  };
}
