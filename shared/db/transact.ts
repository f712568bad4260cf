/**
 * Committing items the stores built (one TransactWriteItems): services compose items from
 * several stores into one atomic change and commit them here, so no service builds a command.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { db } from './client.js';
import type { TransactItem } from './conditional-transaction.js';

/** All or nothing; a refused condition throws TransactionCanceledException (see transaction-errors.ts). */
export async function transact(items: TransactItem[]): Promise<void> {
  await db().send(new TransactWriteCommand({ TransactItems: items }));
}

/** All or nothing; false when a condition (or a concurrent transaction) refused it. */
export async function tryTransact(items: TransactItem[]): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (err) {
    if (err instanceof TransactionCanceledException) return false;
    throw err;
  }
}
