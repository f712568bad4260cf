/**
 * The local mail sink: what the `sink` transport "sent", one item per mail under
 * `PLATFORM#MAILSINK#<recipient hash>`, newest last by sort key, kept a day (ttl).
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';

/** Keep a sent mail for its recipient until `ttl` (epoch seconds). */
export async function putSinkMail(recipientHash: string, mail: { id: string; sent_at: string } & Record<string, unknown>, ttl: number): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { pk: platformKeys.mailSink(recipientHash), sk: `${mail.sent_at}#${mail.id}`, type: 'sink_mail', ...mail, ttl },
    }),
  );
}

/** The newest mail kept for a recipient, as stored. */
export async function newestSinkMail(recipientHash: string): Promise<Record<string, unknown> | undefined> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': platformKeys.mailSink(recipientHash) },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return out.Items?.[0];
}
