/**
 * One conditional "set these fields" update of an existing item: the shared shape of a
 * PATCH. Fields whose value is undefined are left alone; `null` is stored as null.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';

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
