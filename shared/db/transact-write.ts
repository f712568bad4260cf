/**
 * One TransactWriteItems of items gathered from several stores: how a service commits a
 * change that spans aggregates (each store hands over its items; the service commits them
 * here, all or nothing).
 */
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export async function transactWrite(items: TransactItem[]): Promise<void> {
  await db().send(new TransactWriteCommand({ TransactItems: items }));
}

/** A Put that creates the item or fails the transaction (the item must not exist yet). */
export const putNew = (Item: Record<string, unknown>): TransactItem => ({
  Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
});
