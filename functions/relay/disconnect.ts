import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { closeRelaySession } from '../../shared/repositories/relay-sessions.js';
import { relayHostDeps } from '../../shared/voice/relay-aws.js';
import { connectionsEndpoint } from '../../shared/voice/relay-connections.js';
import { handleRelayDisconnect } from '../../shared/voice/relay-host.js';

/**
 * $disconnect of the voice runtime's WebSocket API: the socket closed (Twilio hung up, the
 * `end` we sent, or the two-hour connection limit). The core closes the session (its hangup
 * and remaining events are posted), then the session and its connection pointer are deleted.
 */
export const handler = async (event: APIGatewayProxyWebsocketEventV2): Promise<APIGatewayProxyResultV2> => {
  const connectionId = event.requestContext.connectionId;
  await handleRelayDisconnect(connectionId, await relayHostDeps(connectionsEndpoint(event.requestContext)), (owner) => closeRelaySession(connectionId, owner));
  return { statusCode: 200 };
};
