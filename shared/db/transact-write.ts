/**
 * One TransactWriteItems of items gathered from several stores: how a service commits a
 * change that spans aggregates (each store hands over its items; the service commits them
 * here, all or nothing).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** All or nothing; a refused condition throws TransactionCanceledException (see transaction-errors.ts). */
export async function transactWrite(items: TransactItem[]): Promise<void> {
  await db().send(new TransactWriteCommand({ TransactItems: items }));
}

/** All or nothing; false when a condition (or a concurrent transaction) refused it. */
export async function tryTransactWrite(items: TransactItem[]): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (err) {
    if (err instanceof TransactionCanceledException) return false;
    throw err;
  }
}

/** A Put that creates the item or fails the transaction (the item must not exist yet). */
export const putNew = (Item: Record<string, unknown>): TransactItem => ({
  Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
});
