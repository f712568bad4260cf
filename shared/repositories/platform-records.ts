/** Platform records every deployment needs (`PLATFORM` / `META`, …): seeded once, never overwritten. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';

/** Write the record unless one with its key exists; true when written. */
export async function putPlatformRecordIfAbsent(item: { pk: string; sk: string } & Record<string, unknown>): Promise<boolean> {
  try {
    await db().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
