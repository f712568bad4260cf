/**
 * The one DocumentClient double for store and service unit tests (aws-sdk-client-mock), with
 * no DynamoDB Local. Two ways to use the same mocked client:
 *
 * - scripted: `ddb.on(Command).resolves(…)` answers, then `inputsOf(Command)` asserts the command
 *   a store built (keys, condition, expression values) and how it mapped the answer;
 * - `memoryTable()`: a table in memory behind it, for reads that should see what is there:
 *   GetItem, BatchGetItem (optionally leaving keys unprocessed once), Query by partition (of the
 *   table or an index) with begins_with or BETWEEN on the sort key, in order either way, paged by
 *   Limit and ExclusiveStartKey (filters and projections are not applied), and
 *   BatchWriteItem, and PutItem/DeleteItem and TransactWriteItems of Puts, Deletes and ConditionChecks
 *   (all or nothing, cancelled with DynamoDB's reasons) honouring `attribute_not_exists(pk)`,
 *   `attribute_exists(pk)` and `name = :value`, joined by AND or by OR.
 *   A transaction's Update is applied only in its plainest form — no condition, `SET name = :value`
 *   and `ADD name :number` clauses — the form a counter kept beside a write takes.
 *   Any other condition, and any other Update, is refused loudly, so a test never passes on a
 *   condition nobody evaluated: script those.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';

export const TABLE = 'store-unit-table';
process.env.TABLE_NAME = TABLE;
process.env.AWS_REGION ??= 'us-east-1';
// Pages sign their cursors with the cursor key.
process.env.APP_SECRETS_JSON ??= JSON.stringify({ api_key_pepper: 'p'.repeat(32), cursor_key: 'c'.repeat(32) });

export const ddb = mockClient(DynamoDBDocumentClient);

/** The inputs of every command of this kind sent so far, in order. */
// biome-ignore lint/suspicious/noExplicitAny: a command class of any input shape
export const inputsOf = (command: new (...args: any[]) => unknown): Input[] => ddb.commandCalls(command as never).map((c) => c.args[0].input as Input);

export const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
export const transactionCancelled = (codes: string[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

// biome-ignore lint/suspicious/noExplicitAny: tests read the recorded inputs' nested keys freely
type Input = Record<string, any>;

export type Item = Record<string, unknown> & { pk: string; sk: string };

/** DynamoDB's operation name for each command the table answers, as `sent` reports them. */
const OPERATIONS: Record<string, string> = {
  GetCommand: 'GetItem',
  BatchGetCommand: 'BatchGetItem',
  BatchWriteCommand: 'BatchWriteItem',
  QueryCommand: 'Query',
  PutCommand: 'PutItem',
  DeleteCommand: 'DeleteItem',
  TransactWriteCommand: 'TransactWriteItems',
};

/** `pk = :v`, optionally `AND begins_with(sk, :p)` or `AND sk BETWEEN :a AND :b` (any key names, so an index too). */
const KEY_CONDITION = /^(\w+) = (:\w+)(?: AND (?:begins_with\((\w+), (:\w+)\)|(\w+) BETWEEN (:\w+) AND (:\w+)))?$/;

/**
 * An unconditioned Update of `SET name = :value` and `ADD name :number` clauses, as a function of
 * the item before it; anything else throws (script it).
 */
function plainUpdate(u: {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}) {
  const refuse = () => new Error(`memoryTable cannot apply this Update: ${u.UpdateExpression}`);
  if (u.ConditionExpression !== undefined) throw refuse();
  const name = (n: string) => u.ExpressionAttributeNames?.[n] ?? n;
  const value = (v: string) => u.ExpressionAttributeValues?.[v];
  const parts = /^SET (.+?)(?: ADD (.+))?$/.exec(u.UpdateExpression);
  if (!parts) throw refuse();
  const sets = parts[1]!.split(', ').map(
    (c) =>
      /^([#\w]+) = (:\w+)$/.exec(c) ??
      (() => {
        throw refuse();
      })(),
  );
  const adds = (parts[2]?.split(', ') ?? []).map(
    (c) =>
      /^([#\w]+) (:\w+)$/.exec(c) ??
      (() => {
        throw refuse();
      })(),
  );
  return (before: Item): Item => {
    const after = structuredClone(before);
    for (const [, n, v] of sets) after[name(n!)] = value(v!);
    for (const [, n, v] of adds) after[name(n!)] = ((after[name(n!)] as number | undefined) ?? 0) + (value(v!) as number);
    return after;
  };
}

export function memoryTable() {
  const items = new Map<string, Item>();
  const id = (k: { pk: unknown; sk: unknown }) => `${String(k.pk)}|${String(k.sk)}`;
  /** Keys a BatchGet leaves unprocessed once each (throttling). */
  const unprocessedOnce = new Set<string>();
  /** Whether the condition holds on the item at `key`: clauses joined by AND, or by OR (no parentheses). */
  const holds = (condition: string | undefined, key: { pk: unknown; sk: unknown }, values: Record<string, unknown> = {}): boolean => {
    if (condition === undefined) return true;
    const item = items.get(id(key));
    const clause = (c: string) => {
      if (c === 'attribute_not_exists(pk)') return !item;
      if (c === 'attribute_exists(pk)') return Boolean(item);
      const equal = /^(\w+) = (:\w+)$/.exec(c);
      if (equal) return item?.[equal[1]!] === values[equal[2]!];
      throw new Error(`memoryTable cannot evaluate: ${condition}`);
    };
    // AND binds tighter than OR, as in DynamoDB; a parenthesised group is no clause this knows, so it throws.
    return condition.split(' OR ').some((either) => either.split(' AND ').every(clause));
  };
  const check = (condition: string | undefined, key: { pk: unknown; sk: unknown }, values?: Record<string, unknown>) => {
    if (!holds(condition, key, values)) throw conditionFailed();
  };
  const install = () => {
    ddb.reset();
    ddb.on(GetCommand).callsFake(async (input) => ({ Item: structuredClone(items.get(id(input.Key))) }));
    ddb.on(BatchGetCommand).callsFake(async (input) => {
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
      const v = input.ExpressionAttributeValues as Record<string, string>;
      const m = KEY_CONDITION.exec(input.KeyConditionExpression ?? '');
      if (!m) throw new Error(`memoryTable cannot evaluate: ${input.KeyConditionExpression}`);
      const [, pkName, pkValue, prefixName, prefix, rangeName, from, to] = m;
      const skName = prefixName ?? rangeName ?? 'sk';
      const inRange = (sk: string) => (prefix ? sk.startsWith(v[prefix]!) : from ? sk >= v[from]! && sk <= v[to!]! : true);
      const matching = [...items.values()]
        .filter((i) => i[pkName!] === v[pkValue!] && typeof i[skName] === 'string' && inRange(i[skName] as string))
        .sort((a, b) => ((a[skName] as string) < (b[skName] as string) ? -1 : 1));
      if (input.ScanIndexForward === false) matching.reverse();
      const after = input.ExclusiveStartKey ? matching.findIndex((i) => id(i) === id(input.ExclusiveStartKey as Item)) + 1 : 0;
      const page = matching.slice(after, input.Limit === undefined ? undefined : after + input.Limit);
      const more = after + page.length < matching.length && input.Limit !== undefined;
      const last = page.at(-1);
      const lastKey = more && last ? { pk: last.pk, sk: last.sk, ...(skName === 'sk' ? {} : { [pkName!]: last[pkName!], [skName]: last[skName] }) } : undefined;
      return { Items: page.map((i) => structuredClone(i)), Count: page.length, ...(lastKey ? { LastEvaluatedKey: lastKey } : {}) };
    });
    ddb.on(PutCommand).callsFake(async (input) => {
      check(input.ConditionExpression, input.Item, input.ExpressionAttributeValues);
      items.set(id(input.Item), structuredClone(input.Item));
      return {};
    });
    ddb.on(DeleteCommand).callsFake(async (input) => {
      check(input.ConditionExpression, input.Key, input.ExpressionAttributeValues);
      items.delete(id(input.Key));
      return {};
    });
    ddb.on(BatchWriteCommand).callsFake(async (input) => {
      for (const requests of Object.values(input.RequestItems as Record<string, { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]>))
        for (const r of requests) {
          if (r.PutRequest) items.set(id(r.PutRequest.Item), structuredClone(r.PutRequest.Item));
          if (r.DeleteRequest) items.delete(id(r.DeleteRequest.Key));
        }
      return { UnprocessedItems: {} };
    });
    ddb.on(TransactWriteCommand).callsFake(async (input) => {
      // biome-ignore lint/suspicious/noExplicitAny: the four shapes of a transaction item
      const writes = (input.TransactItems as any[]).map((t) => {
        if (t.Update) return { t, key: t.Update.Key as Item, ok: true, update: plainUpdate(t.Update) };
        const op = t.Put ?? t.Delete ?? t.ConditionCheck;
        return { t, key: (t.Put ? op.Item : op.Key) as Item, ok: holds(op.ConditionExpression, t.Put ? op.Item : op.Key, op.ExpressionAttributeValues) };
      });
      if (writes.some((w) => !w.ok)) {
        // A refused item that asked for ALL_OLD carries the item it found, marshalled, as DynamoDB sends it.
        const reasons = writes.map(({ t, key, ok }) => {
          const old = !ok && (t.Put ?? t.Delete ?? t.ConditionCheck).ReturnValuesOnConditionCheckFailure === 'ALL_OLD' ? items.get(id(key)) : undefined;
          return { Code: ok ? 'None' : 'ConditionalCheckFailed', ...(old ? { Item: marshall(old) } : {}) };
        });
        throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });
      }
      for (const w of writes) {
        if (w.t.Put) items.set(id(w.key), structuredClone(w.t.Put.Item));
        if (w.t.Delete) items.delete(id(w.key));
        if ('update' in w) items.set(id(w.key), w.update!(items.get(id(w.key)) ?? { pk: w.key.pk, sk: w.key.sk }));
      }
      return {};
    });
  };
  install();
  return {
    /** Every command sent since the last reset, in order, by DynamoDB's operation name. */
    get sent() {
      return ddb.calls().map((c) => ({ command: OPERATIONS[c.args[0].constructor.name] ?? c.args[0].constructor.name, input: c.args[0].input as Input }));
    },
    get: (key: { pk: string; sk: string }) => structuredClone(items.get(id(key))),
    put: (item: Item) => items.set(id(item), structuredClone(item)),
    remove: (key: { pk: string; sk: string }) => items.delete(id(key)),
    leaveUnprocessedOnce: (key: { pk: string; sk: string }) => unprocessedOnce.add(id(key)),
    /** Forget the commands sent so far (the items stay). */
    forgetSent: () => ddb.resetHistory(),
    /** Every item held, in key order (what a test checks was left behind). */
    all: () => [...items.values()].map((i) => structuredClone(i)).sort((a, b) => (id(a) < id(b) ? -1 : 1)),
    /** An empty table again, with its handlers back on the client (a scripted test may have reset them). */
    reset: () => {
      items.clear();
      unprocessedOnce.clear();
      install();
    },
  };
}
