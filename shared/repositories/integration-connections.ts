/**
 * Integration (calendar) connections: one item each in the tenant's partition
 * (`INTEGRATION#<icn>`), plus the tenant's active-calendar guard (`CALENDAR_CONNECTION`,
 * naming the one active calendar connection). Connecting puts both in one transaction (the
 * guard only if absent: a second live calendar is a 409); DELETE revokes the connection and
 * removes the guard in one transaction. Google tokens are sealed (secret-box, context bound
 * to tenant + connection) and never leave this module except to the Google adapter.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { open, seal } from '../crypto/secret-box.js';
import { db, tableName } from '../db/client.js';
import { integrationKeys } from '../db/keys.js';
import { queryAll } from '../db/query.js';
import { updateFields } from '../db/update.js';
import { conflict } from '../errors.js';
import { isId, newId } from '../ids.js';
import { queryPage } from '../pagination/page.js';
import { DEFAULT_WORKING_HOURS, type Interval, type WorkingHours } from '../policy/calendar/availability.js';
import type { CalendarProvider, IntegrationConnection } from '../schemas/integrations.js';

const DEFAULT_CALENDAR_TIMEZONE = 'America/New_York';
export const SANDBOX_SCOPES = ['calendar.freebusy', 'calendar.events'];

export interface ConnectionRecord extends IntegrationConnection {
  tenant_id: string;
  /** Google only: sealed {access_token, refresh_token}. */
  sealed_tokens?: string;
  access_expires_at?: string;
  revision: number;
}

export interface OAuthTokens {
  access_token: string;
  refresh_token: string | null;
}

export const presentConnection = (item: Record<string, unknown>): IntegrationConnection => ({
  id: item.id as string,
  provider: item.provider as CalendarProvider,
  scopes: item.scopes as string[],
  status: item.status as IntegrationConnection['status'],
  timezone: item.timezone as string,
  working_hours: { ...DEFAULT_WORKING_HOURS, ...(item.working_hours as WorkingHours) },
  created_at: item.created_at as string,
  updated_at: item.updated_at as string,
});

const sealContext = (tenantId: string, connectionId: string) => ({ purpose: 'calendar_oauth_tokens', tenant_id: tenantId, connection_id: connectionId });
const sealTokens = (tenantId: string, connectionId: string, tokens: OAuthTokens) => seal(JSON.stringify(tokens), sealContext(tenantId, connectionId));
export const openTokens = async (c: ConnectionRecord): Promise<OAuthTokens> =>
  JSON.parse(await open(c.sealed_tokens!, sealContext(c.tenant_id, c.id))) as OAuthTokens;

export interface NewConnection {
  provider: CalendarProvider;
  scopes: string[];
  timezone?: string;
  working_hours?: WorkingHours;
  /** Google: the tokens the code exchange returned (sealed before they are stored). */
  tokens?: OAuthTokens;
  access_expires_at?: string;
  /** Use this id (Google: minted when the authorization started, so the tokens' seal is bound to it). */
  id?: string;
}

/** Connect a calendar (active at once); 409 calendar_already_connected while another is active. */
export async function createConnection(tenantId: string, input: NewConnection, now: Date): Promise<IntegrationConnection> {
  const at = now.toISOString();
  const id = input.id ?? newId('icn');
  const record: ConnectionRecord = {
    id,
    tenant_id: tenantId,
    provider: input.provider,
    scopes: input.scopes,
    status: 'active',
    timezone: input.timezone ?? DEFAULT_CALENDAR_TIMEZONE,
    working_hours: input.working_hours ?? DEFAULT_WORKING_HOURS,
    created_at: at,
    updated_at: at,
    revision: 1,
    ...(input.tokens ? { sealed_tokens: await sealTokens(tenantId, id, input.tokens) } : {}),
    ...(input.access_expires_at ? { access_expires_at: input.access_expires_at } : {}),
  };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...integrationKeys.activeCalendar(tenantId), type: 'calendar_guard', connection_id: id },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...integrationKeys.connection(tenantId, id), type: 'integration_connection', ...record },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
  } catch (err) {
    if (err instanceof TransactionCanceledException && err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') {
      const current = await activeCalendarId(tenantId);
      throw conflict('calendar_already_connected', 'A calendar is already connected; disconnect it (DELETE) before connecting another', {
        connection_id: current ?? null,
      });
    }
    throw err;
  }
  return presentConnection(record as unknown as Record<string, unknown>);
}

export async function getConnectionRecord(tenantId: string, connectionId: string): Promise<ConnectionRecord | undefined> {
  if (!isId(connectionId)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: integrationKeys.connection(tenantId, connectionId), ConsistentRead: true }));
  return out.Item as ConnectionRecord | undefined;
}

/** The connection holding the tenant's one-calendar guard (active, or in error until disconnected), if any. */
export async function activeCalendarId(tenantId: string): Promise<string | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: integrationKeys.activeCalendar(tenantId), ConsistentRead: true }));
  return out.Item?.connection_id as string | undefined;
}

/**
 * The tenant's connected calendar, if any: `active`, or in `error` (its provider refused our
 * refresh token) until it is disconnected — it still holds the guard, and the calendar
 * service answers 409 calendar_reauthorization_required for it (calendar-service.ts).
 */
export async function activeCalendar(tenantId: string): Promise<ConnectionRecord | undefined> {
  return guardedCalendar(tenantId, await activeCalendarId(tenantId));
}

/** The connection the guard names (`activeCalendarId`, read by the caller, perhaps beside another read), if still connected. */
export async function guardedCalendar(tenantId: string, guardId: string | undefined): Promise<ConnectionRecord | undefined> {
  if (!guardId) return undefined;
  const record = await getConnectionRecord(tenantId, guardId);
  return record?.status === 'active' || record?.status === 'error' ? record : undefined;
}

/**
 * The provider refused our refresh token: status `error`, if the connection is still active
 * with the tokens that were refused (a concurrent refresh that stored new ones wins).
 */
export async function markConnectionError(c: ConnectionRecord, now: Date): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: integrationKeys.connection(c.tenant_id, c.id),
        UpdateExpression: 'SET #status = :error, updated_at = :at',
        ConditionExpression: '#status = :active AND sealed_tokens = :read',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':error': 'error', ':active': 'active', ':read': c.sealed_tokens ?? null, ':at': now.toISOString() },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}

export function listConnections(tenantId: string, opts: { limit: number; cursor?: string }) {
  return queryPage({
    tenantId,
    scope: 'integration_connections',
    skPrefix: integrationKeys.connectionsPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: presentConnection,
  });
}

/** Change the working hours / zone; undefined for an unknown connection (`timezone` is a DynamoDB reserved word: updateFields names every attribute). */
export async function updateConnection(
  tenantId: string,
  connectionId: string,
  input: { timezone?: string; working_hours?: WorkingHours },
  now: Date,
): Promise<IntegrationConnection | undefined> {
  const updated = await updateFields(
    integrationKeys.connection(tenantId, connectionId),
    { updated_at: now.toISOString(), timezone: input.timezone, working_hours: input.working_hours },
    { increment: 'revision' },
  );
  return updated ? presentConnection(updated) : undefined;
}

/** Store refreshed tokens (the adapter refreshed an expired access token). */
export async function storeRefreshedTokens(c: ConnectionRecord, tokens: OAuthTokens, accessExpiresAt: string, now: Date): Promise<void> {
  const sealed = await sealTokens(c.tenant_id, c.id, tokens);
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: integrationKeys.connection(c.tenant_id, c.id),
      UpdateExpression: 'SET sealed_tokens = :s, access_expires_at = :x, updated_at = :at',
      ConditionExpression: '#status = :active',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':s': sealed, ':x': accessExpiresAt, ':at': now.toISOString(), ':active': 'active' },
    }),
  );
}

/** Revoke: status revoked, tokens dropped, guard removed (one transaction). Answers the connection as it now is. */
export async function revokeConnection(
  tenantId: string,
  connectionId: string,
  now: Date,
): Promise<{ connection: IntegrationConnection; revoked: ConnectionRecord | null } | undefined> {
  const record = await getConnectionRecord(tenantId, connectionId);
  if (!record) return undefined;
  if (record.status === 'revoked') return { connection: presentConnection(record as unknown as Record<string, unknown>), revoked: null };
  const at = now.toISOString();
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: integrationKeys.connection(tenantId, connectionId),
              UpdateExpression: 'SET #status = :revoked, updated_at = :at REMOVE sealed_tokens, access_expires_at',
              ConditionExpression: '#status <> :revoked',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':revoked': 'revoked', ':at': at },
            },
          },
          {
            Delete: {
              TableName: tableName(),
              Key: integrationKeys.activeCalendar(tenantId),
              ConditionExpression: 'attribute_not_exists(pk) OR connection_id = :id',
              ExpressionAttributeValues: { ':id': connectionId },
            },
          },
        ],
      }),
    );
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
    const again = (await getConnectionRecord(tenantId, connectionId))!;
    return { connection: presentConnection(again as unknown as Record<string, unknown>), revoked: null };
  }
  return { connection: presentConnection({ ...record, status: 'revoked', updated_at: at } as unknown as Record<string, unknown>), revoked: record };
}

/** Events booked on a sandbox calendar overlapping [from, to). */
export async function sandboxEvents(tenantId: string, connectionId: string, from: number, to: number): Promise<Interval[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
    // An event starts at most MAX_DURATION before `from` and still overlaps it: read from a day earlier.
    ExpressionAttributeValues: {
      ':pk': integrationKeys.sandboxEventsPartition(tenantId, connectionId),
      ':a': integrationKeys.sandboxEventsFrom(new Date(from - 86_400_000).toISOString()),
      ':b': integrationKeys.sandboxEventsFrom(new Date(to).toISOString()),
    },
    ConsistentRead: true,
  });
  return items.map((i) => ({ start: Date.parse(i.starts_at as string), end: Date.parse(i.ends_at as string) })).filter((e) => e.end > from && e.start < to);
}

/** How long an authorization may take between oauth/start and Google's redirect back. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

export interface PendingAuthorization {
  tenant_id: string;
  connection_id: string;
  provider: CalendarProvider;
  code_verifier: string;
  timezone?: string;
  working_hours?: WorkingHours;
  expires_at: string;
}

const verifierContext = (state: string, tenantId: string) => ({ purpose: 'oauth_pkce_verifier', state, tenant_id: tenantId });

/** Keep the state → tenant, connection id and (sealed) PKCE verifier until the callback. */
export async function savePendingAuthorization(state: string, p: PendingAuthorization): Promise<void> {
  const sealed = await seal(p.code_verifier, verifierContext(state, p.tenant_id));
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...integrationKeys.oauthState(state),
        type: 'oauth_state',
        tenant_id: p.tenant_id,
        connection_id: p.connection_id,
        provider: p.provider,
        sealed_verifier: sealed,
        ...(p.timezone ? { timezone: p.timezone } : {}),
        ...(p.working_hours ? { working_hours: p.working_hours } : {}),
        expires_at: p.expires_at,
        ttl: Math.floor(Date.parse(p.expires_at) / 1000) + 3600,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** Take (delete) a pending authorization: once only, and never an expired one. */
export async function takePendingAuthorization(state: string, now: Date): Promise<PendingAuthorization | undefined> {
  try {
    const out = await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: integrationKeys.oauthState(state),
        ConditionExpression: 'attribute_exists(pk) AND expires_at > :now',
        ExpressionAttributeValues: { ':now': now.toISOString() },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const i = out.Attributes!;
    return {
      tenant_id: i.tenant_id,
      connection_id: i.connection_id,
      provider: i.provider,
      code_verifier: await open(i.sealed_verifier as string, verifierContext(state, i.tenant_id as string)),
      timezone: i.timezone,
      working_hours: i.working_hours,
      expires_at: i.expires_at,
    } as PendingAuthorization;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
}
