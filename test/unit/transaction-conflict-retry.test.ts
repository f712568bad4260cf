import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { addTransactionConflictRetry, CONFLICT_RETRIES, onlyConflicted } from '../../shared/db/client.js';

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

/** A real client stack whose wire answers are scripted: each send takes the next answer. */
function scriptedClient(answers: (Error | 'ok')[]) {
  const base = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  addTransactionConflictRetry(base);
  const sent: string[] = [];
  base.middlewareStack.add(
    (_next, context) => async () => {
      sent.push(context.commandName as string);
      const answer = answers.shift() ?? 'ok';
      if (answer !== 'ok') throw answer;
      return { response: { statusCode: 200, headers: { 'x-amzn-requestid': 'r' }, body: new TextEncoder().encode('{}') } } as never;
    },
    { step: 'deserialize', name: 'scriptedWire', priority: 'low' },
  );
  return { doc: DynamoDBDocumentClient.from(base), sent };
}

const write = new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 't', Item: { pk: 'a', sk: 'b' } } }] });

describe('transaction conflict retry', () => {
  it('classifies only pure conflicts as retryable', () => {
    expect(onlyConflicted(cancelled('None', 'TransactionConflict'))).toBe(true);
    expect(onlyConflicted(cancelled('TransactionConflict', 'ConditionalCheckFailed'))).toBe(false);
    expect(onlyConflicted(cancelled('None', 'None'))).toBe(false);
    expect(onlyConflicted(cancelled('ValidationError'))).toBe(false);
    expect(onlyConflicted(new Error('boom'))).toBe(false);
  });

  it('sends a conflicted transaction again through the document client and succeeds', async () => {
    const { doc, sent } = scriptedClient([cancelled('TransactionConflict'), cancelled('None', 'TransactionConflict'), 'ok']);
    await expect(doc.send(write)).resolves.toBeDefined();
    expect(sent).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
  });

  it('never retries a failed condition: the caller sees it at once', async () => {
    const { doc, sent } = scriptedClient([cancelled('ConditionalCheckFailed', 'TransactionConflict')]);
    await expect(doc.send(write)).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(sent).toHaveLength(1);
  });

  it('gives up after its bounded retries and surfaces the conflict', async () => {
    const { doc, sent } = scriptedClient(Array.from({ length: 10 }, () => cancelled('TransactionConflict')));
    await expect(doc.send(write)).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(sent).toHaveLength(CONFLICT_RETRIES + 1);
  });

  it('leaves other commands alone', async () => {
    const { doc, sent } = scriptedClient([cancelled('TransactionConflict')]);
    await expect(doc.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }))).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(sent).toEqual(['GetItemCommand']);
  });
});
