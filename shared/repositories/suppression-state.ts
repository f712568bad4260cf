/**
 * Whether a number is suppressed, as a judgement and a contact's creation read it: the
 * presence of its ACTIVE item (suppressions.ts keeps the entries, adds, lifts and lists).
 * Apart so the call and text paths' bundles carry this read and none of the write side.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { suppressionKeys } from '../db/keys.js';

/** The number's ACTIVE item, for a caller that reads it together with other items (strongly consistent, never cached). */
export const activeSuppressionKey = (tenantId: string, phone: string) => suppressionKeys.active(tenantId, phone);

/** Whether the number is suppressed now: one strongly consistent GetItem of its ACTIVE item. */
export async function isSuppressed(tenantId: string, phone: string): Promise<boolean> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: activeSuppressionKey(tenantId, phone), ConsistentRead: true }));
  return out.Item !== undefined;
}
