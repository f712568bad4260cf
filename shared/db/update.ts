/**
 * One conditional "set these fields" update of an existing item: the shared shape of a
 * PATCH. Fields whose value is undefined are left alone; `null` is stored as null.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import type { TransactItem } from './transact-write.js';

export async function updateFields(
  key: { pk: string; sk: string },
  fields: Record<string, unknown>,
  opts: { increment?: string } = {},
): Promise<Record<string, unknown> | undefined> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  Object.entries(fields).forEach(([k, v], i) => {
    if (v === undefined) return;
    names[`#u${i}`] = k;
    values[`:u${i}`] = v;
    sets.push(`#u${i} = :u${i}`);
  });
  if (opts.increment) {
    names['#inc'] = opts.increment;
    values[':one'] = 1;
    sets.push('#inc = #inc + :one');
  }
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
}

/** A record that counts its writes: each one moves it to the next revision. */
interface Revisioned {
  revision: number;
  updated_at: string;
}

/** A further condition on a revisioned update, with the names and values it uses. */
export interface AlsoCondition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/**
 * The optimistic write of a record read before: set `changes`, the next revision and
 * `updated_at = at`, only while the item is still at the revision read (and `also` holds).
 * Answers the update (alone: updateItem; or in a transaction) and the record as it will be.
 */
export function revisionUpdateItem<R extends Revisioned>(
  key: { pk: string; sk: string },
  expected: R,
  changes: NoInfer<Partial<R>>,
  at: Date,
  also?: AlsoCondition,
): { item: TransactItem; next: R } {
  const next: R = { ...expected, ...changes, revision: expected.revision + 1, updated_at: at.toISOString() };
  const fields = Object.keys(changes).concat('revision', 'updated_at') as (keyof R & string)[];
  const names: Record<string, string> = { ...also?.names, '#rev': 'revision' };
  const values: Record<string, unknown> = { ...also?.values, ':expected': expected.revision };
  const sets = fields.map((f, i) => {
    names[`#f${i}`] = f;
    values[`:v${i}`] = next[f];
    return `#f${i} = :v${i}`;
  });
  return {
    next,
    item: {
      Update: {
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `attribute_exists(pk) AND #rev = :expected${also ? ` AND ${also.expression}` : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  };
}

/** One update item sent alone; false when its condition failed. */
export async function updateItem(item: TransactItem): Promise<boolean> {
  try {
    await db().send(new UpdateCommand(item.Update as ConstructorParameters<typeof UpdateCommand>[0]));
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
