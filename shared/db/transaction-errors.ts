import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** Which item of a cancelled transaction failed its condition (index into TransactItems), or -1. */
export const failedConditionIndex = (err: unknown): number =>
  err instanceof TransactionCanceledException ? (err.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed') : -1;
