/**
 * The sandbox carrier's calls (`PLATFORM#SANDBOX#CALL#<sid>`, gsi1 by account and creation),
 * platform-owned: no tenant key reaches them. The call's shape and its timeline rules are
 * the sandbox's (shared/sandbox/calls.ts); this store reads and writes the item, every
 * change but the answer conditional on the `revision` (and `step`) it was read at.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { queryAll, scanAll } from '../db/query.js';

type Item = Record<string, unknown>;
type CallKeys = { sid: string; account_sid: string; created_at: string };

/** The call as stored, without its keys and type. */
const strip = <T>(item: Item | undefined): T | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, gsi1pk: _g, gsi1sk: _s, type: _t, ...call } = item;
  return call as T;
};

/** A condition that failed is an answer (someone else moved the call): false / undefined. */
async function unlessRaced<T>(write: () => Promise<T>, raced: T): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return raced;
    throw err;
  }
}

export async function putSandboxCallItem(call: CallKeys & object): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...platformKeys.sandboxCall(call.sid),
        ...platformKeys.sandboxCallIndex(call.account_sid, call.created_at, call.sid),
        type: 'sandbox_call',
        ...call,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function deleteSandboxCallItem(sid: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: platformKeys.sandboxCall(sid) }));
}

export async function readSandboxCall<T>(sid: string): Promise<T | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.sandboxCall(sid), ConsistentRead: true }));
  return strip<T>(out.Item);
}

/** Every call an account placed, oldest first (eventually consistent: the index). */
export async function sandboxCallsOfAccount<T>(accountSid: string): Promise<T[]> {
  const { gsi1pk } = platformKeys.sandboxCallIndex(accountSid, '', 'x');
  const items = await queryAll({ IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': gsi1pk } });
  return items.map((i) => strip<T>(i)!);
}

/**
 * Step `read.step` played: the step and revision move on by one, the sequence by one when the
 * step posts a callback, and `changes` are set — only if nobody else played it (same step,
 * same revision). The call as it now is, or undefined.
 */
export function claimSandboxCallStep<T>(
  sid: string,
  read: { step: number; revision: number },
  changes: Record<string, unknown>,
  posts: boolean,
  now: string,
): Promise<T | undefined> {
  const sets = ['#step = :next', '#revision = :rev1', '#sequence = #sequence + :bump', 'updated_at = :now'];
  const values: Record<string, unknown> = {
    ':step': read.step,
    ':rev': read.revision,
    ':next': read.step + 1,
    ':rev1': read.revision + 1,
    ':bump': posts ? 1 : 0,
    ':now': now,
  };
  const names: Record<string, string> = { '#step': 'step', '#revision': 'revision', '#sequence': 'sequence' };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  return unlessRaced(async () => {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxCall(sid),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: '#step = :step AND #revision = :rev',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip<T>(out.Attributes);
  }, undefined);
}

/** What answering did: the TwiML path and the stream (unconditional: recorded once, by the step that answered). */
export async function setSandboxCallAnswer(sid: string, path: unknown, stream: unknown): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: platformKeys.sandboxCall(sid),
      UpdateExpression: 'SET twiml_path = :p, #stream = :s',
      ExpressionAttributeNames: { '#stream': 'stream' },
      ExpressionAttributeValues: { ':p': path, ':s': stream },
    }),
  );
}

/** Move plan step `last` (the final one) to `end`, only at `revision`; true when moved. */
export function moveSandboxCallEnd(sid: string, last: number, revision: number, end: { dueAt: number; durationSeconds: number }): Promise<boolean> {
  return unlessRaced(async () => {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxCall(sid),
        UpdateExpression: `SET #plan[${last}].due_at = :d, #plan[${last}].durationSeconds = :secs, #revision = :rev1`,
        ConditionExpression: '#revision = :rev',
        ExpressionAttributeNames: { '#plan': 'plan', '#revision': 'revision' },
        ExpressionAttributeValues: { ':d': end.dueAt, ':secs': end.durationSeconds, ':rev': revision, ':rev1': revision + 1 },
      }),
    );
    return true;
  }, false);
}

/** Replace the plan, only at `revision`; true when replaced. */
export function replaceSandboxCallPlan(sid: string, revision: number, plan: unknown[], now: string): Promise<boolean> {
  return unlessRaced(async () => {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxCall(sid),
        UpdateExpression: 'SET #plan = :plan, #revision = :rev1, updated_at = :now',
        ConditionExpression: '#revision = :rev',
        ExpressionAttributeNames: { '#plan': 'plan', '#revision': 'revision' },
        ExpressionAttributeValues: { ':plan': plan, ':rev': revision, ':rev1': revision + 1, ':now': now },
      }),
    );
    return true;
  }, false);
}

/** Keep a run's report on the call (nothing when the call is gone). */
export async function setOnSandboxCall(sid: string, name: 'runtime' | 'relay', value: unknown): Promise<void> {
  await unlessRaced(async () => {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxCall(sid),
        UpdateExpression: 'SET #name = :v',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#name': name },
        ExpressionAttributeValues: { ':v': value },
      }),
    );
  }, undefined);
}

/** The call ends now: its plan, status, end time and duration replaced, only at `revision`. The call as it now is, or undefined when raced. */
export function endSandboxCall<T>(
  sid: string,
  revision: number,
  end: { plan: unknown[]; status: string; endTime: string; duration: number },
): Promise<T | undefined> {
  return unlessRaced(async () => {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxCall(sid),
        UpdateExpression: 'SET #plan = :plan, #status = :status, end_time = :end, #duration = :duration, #revision = :rev1, updated_at = :now',
        ConditionExpression: '#revision = :rev',
        ExpressionAttributeNames: { '#plan': 'plan', '#status': 'status', '#duration': 'duration', '#revision': 'revision' },
        ExpressionAttributeValues: {
          ':plan': end.plan,
          ':status': end.status,
          ':end': end.endTime,
          ':duration': end.duration,
          ':rev': revision,
          ':rev1': revision + 1,
          ':now': end.endTime,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip<T>(out.Attributes);
  }, undefined);
}

/**
 * Every sandbox call and text (type and SID), by a scan: they have no index by state, and
 * this runs once per start of the local runtime (the sandbox carrier's own items, never a
 * tenant's request).
 */
export async function sandboxTimelineItems(): Promise<{ type: string; sid: string }[]> {
  const items = await scanAll({
    FilterExpression: '#t IN (:call, :message)',
    ProjectionExpression: '#t, sid',
    ExpressionAttributeNames: { '#t': 'type' },
    ExpressionAttributeValues: { ':call': 'sandbox_call', ':message': 'sandbox_message' },
  });
  return items.map((item) => ({ type: item.type as string, sid: item.sid as string }));
}
