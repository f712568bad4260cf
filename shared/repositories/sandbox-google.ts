/**
 * The sandbox's Google state (`PLATFORM#SANDBOX#OAUTH…`, `…GCAL…`), platform-owned: OAuth
 * codes and tokens stored by their SHA-256 only, revoked grants, the events inserted
 * through a grant, and injected insert faults. What they mean is shared/sandbox/google.ts's.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { integrationKeys } from '../db/keys.js';

type Item = Record<string, unknown>;

const read = async (key: { pk: string; sk: string }): Promise<Item | undefined> =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

/** A false condition is an answer, not an error. */
async function unlessExists(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

export async function putOauthCode(codeHash: string, code: Item): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...integrationKeys.sandboxOauthCode(codeHash), type: 'sandbox_oauth_code', ...code } }));
}

export const readOauthCode = (codeHash: string): Promise<Item | undefined> => read(integrationKeys.sandboxOauthCode(codeHash));

/** Mark a code used; false when it already was (codes are one use). */
export const spendOauthCode = (codeHash: string): Promise<boolean> =>
  unlessExists(() =>
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: integrationKeys.sandboxOauthCode(codeHash),
        UpdateExpression: 'SET used = :t',
        ConditionExpression: 'used = :f',
        ExpressionAttributeValues: { ':t': true, ':f': false },
      }),
    ),
  );

export async function putOauthToken(tokenHash: string, token: Item): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...integrationKeys.sandboxOauthToken(tokenHash), type: 'sandbox_oauth_token', ...token } }));
}

export const readOauthToken = (tokenHash: string): Promise<Item | undefined> => read(integrationKeys.sandboxOauthToken(tokenHash));

export async function revokeOauthToken(tokenHash: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: integrationKeys.sandboxOauthToken(tokenHash),
      UpdateExpression: 'SET revoked = :t',
      ExpressionAttributeValues: { ':t': true },
    }),
  );
}

/** Every access token of the grant stops working (a revoked refresh token takes them with it). */
export async function putGrantRevoked(grantId: string): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...integrationKeys.sandboxOauthGrantRevoked(grantId), type: 'sandbox_oauth_grant_revoked', grant_id: grantId },
    }),
  );
}

export const grantRevoked = async (grantId: string): Promise<boolean> => Boolean(await read(integrationKeys.sandboxOauthGrantRevoked(grantId)));

/** The next insert of `eventId` fails once; the fault expires at `ttl` (epoch seconds). */
export async function putInsertFault(eventId: string, ttl: number): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...integrationKeys.sandboxGoogleInsertFault(eventId), type: 'sandbox_gcal_fault', ttl } }));
}

/** Take the injected fault for `eventId`: true once when one was injected. */
export async function takeInsertFault(eventId: string): Promise<boolean> {
  const fault = await db().send(new DeleteCommand({ TableName: tableName(), Key: integrationKeys.sandboxGoogleInsertFault(eventId), ReturnValues: 'ALL_OLD' }));
  return Boolean(fault.Attributes);
}

/** Store an event of the grant's calendar; false when its id is taken. */
export const putGoogleEvent = (grantId: string, e: { id: string } & Item): Promise<boolean> =>
  unlessExists(() =>
    db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...integrationKeys.sandboxGoogleEvent(grantId, e.id), type: 'sandbox_gcal_event', ...e },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );

/** The events inserted through the grant (one page: a sandbox calendar holds few). */
export async function googleEventsOf(grantId: string): Promise<Item[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': integrationKeys.sandboxGoogleEventsPartition(grantId) },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}
