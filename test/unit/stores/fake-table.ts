/**
 * A table in memory behind aws-sdk-client-mock, for store unit tests: GetItem, BatchGetItem
 * (strongly consistent asked, optionally leaving keys unprocessed) and Query by partition
 * with begins_with or BETWEEN on the sort key (filters and projections are not applied).
 * Every command is recorded in order.
 */
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';

process.env.TABLE_NAME ??= 'unit-table';

export type Item = Record<string, unknown> & { pk: string; sk: string };

export function fakeTable() {
  const items = new Map<string, Item>();
  const id = (k: { pk: unknown; sk: unknown }) => `${String(k.pk)}|${String(k.sk)}`;
  const ddb = mockClient(DynamoDBDocumentClient);
  // biome-ignore lint/suspicious/noExplicitAny: tests read the recorded inputs' nested keys freely
  const sent: { command: string; input: Record<string, any> }[] = [];
  /** Keys a BatchGet leaves unprocessed once each (throttling). */
  const unprocessedOnce = new Set<string>();
  ddb.on(GetCommand).callsFake(async (input) => {
    sent.push({ command: 'GetItem', input });
    return { Item: structuredClone(items.get(id(input.Key))) };
  });
  ddb.on(BatchGetCommand).callsFake(async (input) => {
    sent.push({ command: 'BatchGetItem', input });
    const [table, req] = Object.entries(input.RequestItems as Record<string, { Keys: Item[] }>)[0]!;
    const found: Item[] = [];
    const left: Item[] = [];
    for (const k of req.Keys) {
      if (unprocessedOnce.delete(id(k))) left.push(k);
      else if (items.has(id(k))) found.push(structuredClone(items.get(id(k))!));
    }
    return { Responses: { [table]: found }, UnprocessedKeys: left.length ? { [table]: { Keys: left } } : {} };
  });
  ddb.on(QueryCommand).callsFake(async (input) => {
    sent.push({ command: 'Query', input });
    const v = input.ExpressionAttributeValues as Record<string, string>;
    const inRange = (sk: string) => (v[':prefix'] !== undefined ? sk.startsWith(v[':prefix']) : sk >= v[':from']! && sk <= v[':to']!);
    return { Items: [...items.values()].filter((i) => i.pk === v[':pk'] && inRange(i.sk)).map((i) => structuredClone(i)) };
  });
  ddb.on(PutCommand).callsFake(async (input) => {
    sent.push({ command: 'PutItem', input });
    items.set(id(input.Item), structuredClone(input.Item));
    return {};
  });
  return {
    ddb,
    sent,
    put: (item: Item) => items.set(id(item), structuredClone(item)),
    remove: (key: { pk: string; sk: string }) => items.delete(id(key)),
    leaveUnprocessedOnce: (key: { pk: string; sk: string }) => unprocessedOnce.add(id(key)),
    reset: () => {
      items.clear();
      sent.length = 0;
    },
  };
}
