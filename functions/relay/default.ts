import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { relayHostDeps } from '../../shared/voice/relay-aws.js';
import { connectionsEndpoint, warmedUp } from '../../shared/voice/relay-connections.js';
import { handleRelayFrame } from '../../shared/voice/relay-host.js';

/**
 * $default of the voice runtime's WebSocket API: one ConversationRelay frame. The session
 * is read, stepped and written back; a prompt's reply is streamed from this invocation
 * (shared/voice/relay-host.ts), which stops once another invocation's interrupt makes it stale.
 */
export const handler = async (event: APIGatewayProxyWebsocketEventV2): Promise<APIGatewayProxyResultV2> => {
  if (await warmedUp(event)) return { statusCode: 200 };
  const raw = event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : (event.body ?? '');
  await handleRelayFrame(event.requestContext.connectionId, raw, await relayHostDeps(connectionsEndpoint(event.requestContext)));
  return { statusCode: 200 };
};
