import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { now } from '../../shared/clock.js';
import { logger } from '../../shared/observability.js';
import { getRelaySession, openRelaySession } from '../../shared/repositories/relay-sessions.js';
import { admitRelayConnection } from '../../shared/voice/relay-admission.js';
import { connectionGone, connectionsEndpoint, warmedUp } from '../../shared/voice/relay-connections.js';

type ConnectEvent = APIGatewayProxyWebsocketEventV2 & { headers?: Record<string, string | undefined> };

const header = (headers: ConnectEvent['headers'], name: string) => Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];

/**
 * $connect of the voice runtime's WebSocket API: Twilio ConversationRelay opening a call's
 * socket at <stage URL>?token=<Stream token>. The token (and X-Twilio-Signature when sent)
 * is checked before anything is written (401/403); then the call's session is opened with a
 * conditional put, so a second live connection for the call is refused (409) — unless API
 * Gateway says the connection holding it is gone.
 */
export const handler = async (event: ConnectEvent): Promise<APIGatewayProxyResultV2> => {
  if (await warmedUp(event)) return { statusCode: 200 };
  // API Gateway hands $connect the parsed query only; the relay URL carries just the token, so this is the query Twilio signed.
  const rawQuery = new URLSearchParams(
    Object.entries(event.queryStringParameters ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
  ).toString();
  const at = now();
  const admission = await admitRelayConnection({ rawQuery, signature: header(event.headers, 'x-twilio-signature'), at });
  if (!admission.ok) {
    logger.warn('relay connection refused', { reason: admission.reason });
    return { statusCode: admission.status };
  }
  const { claims } = admission;
  const connectionId = event.requestContext.connectionId;
  let opened = await openRelaySession({ claims, connectionId, at });
  if (opened === 'busy') {
    const holder = await getRelaySession(claims.tenant_id, claims.call_id);
    if (holder && (await connectionGone(connectionsEndpoint(event.requestContext), holder.connection_id)))
      opened = await openRelaySession({ claims, connectionId, at, replacing: holder.connection_id });
  }
  if (opened === 'busy') {
    logger.warn('relay connection refused: the call has a live socket', { callId: claims.call_id });
    return { statusCode: 409 };
  }
  logger.info('relay connected', { callId: claims.call_id });
  return { statusCode: 200 };
};
