/**
 * National DNC snapshots: platform data (no tenant), one live generation per area code.
 *
 * A load writes a new generation beside the live one — its manifest (the exchanges it
 * holds), then one item per exchange (a bitmap of listed line numbers) with parallel
 * BatchWriteItem — and only then flips the area code's pointer to it with ONE conditional
 * write (on the generation it replaced), then removes the area code's older generations
 * (the replaced one, and any an interrupted load left). Readers (dnc-facts.ts) read the
 * pointer, then the exchange item of that generation, so they see the whole old snapshot or
 * the whole new one, never a half-loaded one.
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, putItems } from '../db/batch-write.js';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { queryCollection } from '../db/query.js';
import { newId } from '../ids.js';
import type { ParsedSnapshot } from '../policy/dnc/snapshot-file.js';
import { type DncPointer, readDncPointer } from './dnc-facts.js';

class ConcurrentDncLoad extends Error {}

const T = () => tableName();
const PARALLEL = 8;

/** Every loaded area code, by area code. */
export async function dncStatus(): Promise<DncPointer[]> {
  const items = await queryCollection({ pk: platformKeys.dncPartition, prefix: platformKeys.dncPointersPrefix }, { ConsistentRead: true });
  return (items as unknown as DncPointer[]).map(({ area_code, generation, as_of, numbers, loaded_at }) => ({
    area_code,
    generation,
    as_of,
    numbers,
    loaded_at,
  }));
}

/** Delete a generation: its exchange items, then its manifest. */
async function dropGeneration(areaCode: string, generation: string, exchanges: readonly string[]): Promise<void> {
  await deleteKeys(
    exchanges.map((x) => platformKeys.dncExchange(areaCode, generation, x)),
    { parallel: PARALLEL },
  );
  await deleteKeys([platformKeys.dncGeneration(areaCode, generation)]);
}

/** Every generation manifest of the area code (live, replaced, or left by an interrupted load). */
async function generations(areaCode: string): Promise<{ generation: string; exchanges: string[] }[]> {
  const items = await queryCollection({ pk: platformKeys.dncPartition, prefix: platformKeys.dncGenerationsPrefix(areaCode) }, { ConsistentRead: true });
  return items.map((item) => ({ generation: item.generation as string, exchanges: item.exchanges as string[] }));
}

/**
 * Replace the area code's snapshot, loaded at `at` (the generation's created_at, the
 * pointer's loaded_at). Returns the new pointer. A load that loses a race with
 * another load of the same area code removes what it wrote and throws ConcurrentDncLoad.
 */
export async function replaceDncSnapshot(areaCode: string, asOf: string, snapshot: ParsedSnapshot, at: Date): Promise<DncPointer> {
  const previous = await readDncPointer(areaCode);
  const generation = newId('dng');
  const exchanges = [...snapshot.exchanges.keys()].sort();
  const now = at.toISOString();
  await db().send(
    new PutCommand({
      TableName: T(),
      Item: {
        ...platformKeys.dncGeneration(areaCode, generation),
        type: 'dnc_generation',
        area_code: areaCode,
        generation,
        as_of: asOf,
        numbers: snapshot.numbers,
        exchanges,
        created_at: now,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  await putItems(
    exchanges.map((x) => ({ ...platformKeys.dncExchange(areaCode, generation, x), type: 'dnc_exchange', lines: snapshot.exchanges.get(x)! })),
    { parallel: PARALLEL },
  );
  const pointer: DncPointer = { area_code: areaCode, generation, as_of: asOf, numbers: snapshot.numbers, loaded_at: now };
  try {
    await db().send(
      new PutCommand({
        TableName: T(),
        Item: { ...platformKeys.dncPointer(areaCode), type: 'dnc_pointer', ...pointer },
        ConditionExpression: previous ? 'generation = :previous' : 'attribute_not_exists(pk)',
        ...(previous ? { ExpressionAttributeValues: { ':previous': previous.generation } } : {}),
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    await dropGeneration(areaCode, generation, exchanges);
    throw new ConcurrentDncLoad(`another load replaced area code ${areaCode}'s snapshot meanwhile; nothing of this load was kept (run it again)`);
  }
  // Generation ids are time-ordered: an older one is the replaced snapshot or a load that can
  // no longer flip (it read the pointer before this flip). A newer one is a load still running.
  for (const old of await generations(areaCode)) {
    if (old.generation < generation) await dropGeneration(areaCode, old.generation, old.exchanges);
  }
  return pointer;
}
