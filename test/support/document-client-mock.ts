/**
 * Store unit tests: the DocumentClient mocked (aws-sdk-client-mock), so a test asserts the
 * command a store builds and how it maps the answer, with no DynamoDB Local.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';

export const TABLE = 'store-unit-table';
process.env.TABLE_NAME = TABLE;
process.env.AWS_REGION ??= 'us-east-1';

export const ddb = mockClient(DynamoDBDocumentClient);

/** The inputs of every command of this kind sent so far, in order. */
// biome-ignore lint/suspicious/noExplicitAny: a command class of any input shape
export const inputsOf = (command: new (...args: any[]) => unknown): Record<string, any>[] =>
  ddb.commandCalls(command as never).map((c) => c.args[0].input as Record<string, unknown>);

export const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
export const transactionCancelled = (codes: string[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });
