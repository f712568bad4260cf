/**
 * The AWS voice runtime host's session items (keys: `relayKeys`): one per call while a
 * ConversationRelay socket is live, plus a pointer from API Gateway's connection id.
 *   - open: session and pointer in one transaction, the session put only if the call has
 *     none (or the one it has belongs to a connection API Gateway says is gone), so a
 *     second live connection for a call is refused;
 *   - save: every write is conditioned on the revision read (and on the connection still
 *     owning the session), so two invocations never both apply a step to the same state;
 *   - the turn generation is copied out of the state, so a streaming invocation's read
 *     between phrases shows at a glance that an interrupt made its reply stale.
 * The state is stored as JSON text: the core's state is plain JSON and stays whole.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';

/** The call token's claims as the session keeps them (the token itself is never stored). */
type VerifiedStreamClaims = { tenant_id: string; call_id: string; agent_version_id: string; number_id: string; policy_version?: number; exp: number };

import { relayKeys } from '../db/keys.js';

export interface RelaySessionRecord {
  tenant_id: string;
  call_id: string;
  connection_id: string;
  claims: VerifiedStreamClaims;
  /** The conversation core's state (JSON); null until the first frame. */
  state: unknown;
  /** The core's turn generation, copied out of the state so it can be read alone. */
  generation: number;
  revision: number;
  /** Set at setup: what every reply needs (system prompt, model route), kept with the state. */
  reply_context: unknown;
}

/** Sessions outlive their token by an hour, then DynamoDB's TTL sweeps any a lost $disconnect left. */
const ttlFor = (claims: VerifiedStreamClaims) => claims.exp + 3600;

const isConditionFailure = (err: unknown) =>
  err instanceof ConditionalCheckFailedException ||
  (err instanceof TransactionCanceledException && (err.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed'));

/** 'busy' when the call already has a session owned by another connection (other than `replacing`). */
export async function openRelaySession(input: {
  claims: VerifiedStreamClaims;
  connectionId: string;
  at: Date;
  replacing?: string;
}): Promise<'opened' | 'busy'> {
  const { claims, connectionId } = input;
  const ttl = ttlFor(claims);
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...relayKeys.session(claims.tenant_id, claims.call_id),
                type: 'relay_session',
                tenant_id: claims.tenant_id,
                call_id: claims.call_id,
                connection_id: connectionId,
                claims,
                state: null,
                generation: 0,
                revision: 0,
                reply_context: null,
                connected_at: input.at.toISOString(),
                ttl,
              },
              ConditionExpression: input.replacing ? 'attribute_not_exists(pk) OR connection_id = :stale' : 'attribute_not_exists(pk)',
              ...(input.replacing ? { ExpressionAttributeValues: { ':stale': input.replacing } } : {}),
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...relayKeys.connection(connectionId), type: 'relay_connection', tenant_id: claims.tenant_id, call_id: claims.call_id, ttl },
            },
          },
        ],
      }),
    );
    return 'opened';
  } catch (err) {
    if (isConditionFailure(err)) return 'busy';
    throw err;
  }
}

export async function relayConnection(connectionId: string): Promise<{ tenant_id: string; call_id: string } | undefined> {
  const item = (await db().send(new GetCommand({ TableName: tableName(), Key: relayKeys.connection(connectionId), ConsistentRead: true }))).Item;
  return item ? { tenant_id: item.tenant_id as string, call_id: item.call_id as string } : undefined;
}

export async function getRelaySession(tenantId: string, callId: string): Promise<RelaySessionRecord | undefined> {
  const item = (await db().send(new GetCommand({ TableName: tableName(), Key: relayKeys.session(tenantId, callId), ConsistentRead: true }))).Item;
  if (!item) return undefined;
  return {
    tenant_id: item.tenant_id as string,
    call_id: item.call_id as string,
    connection_id: item.connection_id as string,
    claims: item.claims as VerifiedStreamClaims,
    state: typeof item.state === 'string' ? JSON.parse(item.state) : null,
    generation: item.generation as number,
    revision: item.revision as number,
    reply_context: item.reply_context ?? null,
  };
}

/** False when another invocation wrote first (or the connection no longer owns the session): read again. */
export async function saveRelaySession(record: RelaySessionRecord, next: { state: unknown; generation: number; reply_context?: unknown }): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: relayKeys.session(record.tenant_id, record.call_id),
        UpdateExpression: `SET #state = :state, generation = :gen, revision = :next${next.reply_context === undefined ? '' : ', reply_context = :ctx'}`,
        ConditionExpression: 'revision = :rev AND connection_id = :conn',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':state': JSON.stringify(next.state),
          ':gen': next.generation,
          ':next': record.revision + 1,
          ':rev': record.revision,
          ':conn': record.connection_id,
          ...(next.reply_context === undefined ? {} : { ':ctx': next.reply_context }),
        },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** Deletes the pointer, and the session while this connection still owns it. */
export async function closeRelaySession(connectionId: string, owner: { tenant_id: string; call_id: string }): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: relayKeys.connection(connectionId) }));
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: relayKeys.session(owner.tenant_id, owner.call_id),
        ConditionExpression: 'connection_id = :conn',
        ExpressionAttributeValues: { ':conn': connectionId },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}
