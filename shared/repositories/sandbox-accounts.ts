/** The sandbox carrier's accounts (`PLATFORM#SANDBOX#ACCOUNT#<sid>`), platform-owned: no tenant key reaches them. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';

/** Store an account unless its SID exists (then nothing changes). */
export async function putSandboxAccountItem(account: { sid: string } & object): Promise<void> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...platformKeys.sandboxAccount(account.sid), type: 'sandbox_account', ...account },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}

export async function readSandboxAccount<T>(sid: string): Promise<T | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.sandboxAccount(sid) }));
  return out.Item as T | undefined;
}
