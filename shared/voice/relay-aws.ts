/**
 * The AWS voice runtime host's wiring (functions/relay/): the API Gateway Management API for
 * this WebSocket API's connections, the control plane per call (its token minted again from
 * the stored claims, so no credential is stored), the core and the reply model.
 */
import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GetConnectionCommand, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { now } from '../clock.js';
import { logger } from '../observability.js';
import { callTokenKey } from '../telephony/call-token-key.js';
import { verifyStreamToken } from '../telephony/call-tokens.js';
import { createControlPlane } from './control-plane.js';
import type { ReplyModel } from './ports.js';
import { loadRelayCore } from './relay-core.js';
import { planSystemPrompt, reMintedToken, type RelayHostDeps } from './relay-host.js';
import { voiceRuntimeSettings } from './runtime-settings.js';

/**
 * The warm-up schedule's ping (infra/constructs/relay-api.ts): no requestContext, `warmUp: true`.
 * Answered by loading what a first frame would (the application secret's token key), touching no data.
 */
export async function warmedUp(event: unknown): Promise<boolean> {
  if ((event as { warmUp?: unknown }).warmUp !== true) return false;
  await callTokenKey();
  return true;
}

const clients = new Map<string, ApiGatewayManagementApiClient>();

/** The @connections endpoint of the API and stage an event came through. */
export const connectionsEndpoint = (ctx: { domainName: string; stage: string }): string => `https://${ctx.domainName}/${ctx.stage}`;

function management(endpoint: string): ApiGatewayManagementApiClient {
  let client = clients.get(endpoint);
  if (!client) clients.set(endpoint, (client = new ApiGatewayManagementApiClient({ endpoint })));
  return client;
}

/** True when API Gateway no longer holds the connection (a $disconnect we never saw). */
export async function connectionGone(endpoint: string, connectionId: string): Promise<boolean> {
  try {
    await management(endpoint).send(new GetConnectionCommand({ ConnectionId: connectionId }));
    return false;
  } catch (err) {
    if (err instanceof GoneException) return true;
    throw err;
  }
}

/**
 * Until the pinned version's model chain is wired into this host, every reply fails over to
 * the core's closing line and handoff rather than saying something no model decided.
 */
const unwiredModel: ReplyModel = {
  async *stream(request) {
    yield { type: 'error', reason: 'all_models_failed', models: [request.route.primary] };
  },
};

export async function relayHostDeps(endpoint: string, model: ReplyModel = unwiredModel): Promise<RelayHostDeps> {
  const [core, key] = await Promise.all([loadRelayCore(), callTokenKey()]);
  const client = management(endpoint);
  return {
    core,
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
    systemPrompt: planSystemPrompt,
    settings: voiceRuntimeSettings(),
    now,
    log: {
      info: (message, fields) => logger.info(message, { ...fields }),
      warn: (message, fields) => logger.warn(message, { ...fields }),
      error: (message, fields) => logger.error(message, { ...fields }),
    },
  };
}
