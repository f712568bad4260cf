/**
 * The sandbox carrier's outbound texts (`PLATFORM#SANDBOX#MESSAGE#<sid>`), platform-owned.
 * The message's shape and timeline are the sandbox's (shared/sandbox/messages.ts); each
 * step is applied once, conditional on the `step` it was read at.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';

const strip = <T>(item: Record<string, unknown> | undefined): T | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, type: _t, ...message } = item;
  return message as T;
};

export async function putSandboxMessageItem(message: { sid: string } & object): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...platformKeys.sandboxMessage(message.sid), type: 'sandbox_message', ...message },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function deleteSandboxMessageItem(sid: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: platformKeys.sandboxMessage(sid) }));
}

export async function readSandboxMessage<T>(sid: string): Promise<T | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.sandboxMessage(sid), ConsistentRead: true }));
  return strip<T>(out.Item);
}

/** What playing step `step` sets on the message. */
export interface MessageStepChanges {
  status: string;
  error_code: number | null;
  error_message: string | null;
  /** The first time the message left (kept once set); null for a failure. */
  date_sent: string | null;
}

/** Apply step `step` unless it was already applied; the message as it now is, or undefined. */
export async function claimSandboxMessageStep<T>(sid: string, step: number, changes: MessageStepChanges, now: string): Promise<T | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxMessage(sid),
        UpdateExpression:
          'SET #step = :next, #status = :status, error_code = :code, error_message = :msg, date_sent = if_not_exists(date_sent, :sent), updated_at = :now',
        ConditionExpression: '#step = :step',
        ExpressionAttributeNames: { '#step': 'step', '#status': 'status' },
        ExpressionAttributeValues: {
          ':step': step,
          ':next': step + 1,
          ':status': changes.status,
          ':code': changes.error_code,
          ':msg': changes.error_message,
          ':sent': changes.date_sent,
          ':now': now,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip<T>(out.Attributes);
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
}
