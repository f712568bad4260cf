/** What the sandbox carrier itself recorded of the calls from some numbers: its own created and end instants (its clock). */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/db/client.js';

export interface CarrierCall {
  created: number;
  /** null while the carrier still plays it. */
  ended: number | null;
}

export async function carrierCallsFrom(numbers: readonly string[]): Promise<CarrierCall[]> {
  const from = new Set(numbers);
  const calls: CarrierCall[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#t = :t',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':t': 'sandbox_call' },
        ExclusiveStartKey: start,
      }),
    );
    for (const i of page.Items ?? [])
      if (from.has(i.from as string)) calls.push({ created: Date.parse(i.created_at as string), ended: i.end_time ? Date.parse(i.end_time as string) : null });
    start = page.LastEvaluatedKey;
  } while (start);
  return calls;
}
