/**
 * What every relay function needs of API Gateway without the conversation (so $connect's
 * bundle stays small: it never loads the model chain, the tools or the core): the warm-up
 * answer, the @connections endpoint and its Management API client, and whether a connection
 * is gone.
 */
import { ApiGatewayManagementApiClient, GetConnectionCommand, GoneException } from '@aws-sdk/client-apigatewaymanagementapi';
import { callTokenKey } from '../telephony/call-token-key.js';

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

/** One client per @connections endpoint, kept for the container's life. */
export function management(endpoint: string): ApiGatewayManagementApiClient {
  const known = clients.get(endpoint);
  if (known) return known;
  const client = new ApiGatewayManagementApiClient({ endpoint });
  clients.set(endpoint, client);
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
