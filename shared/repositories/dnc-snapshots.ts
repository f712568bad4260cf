/**
 * National DNC snapshots: platform data (no tenant), one live generation per area code.
 *
 * A load writes a new generation beside the live one — its manifest (the exchanges it
 * holds), then one item per exchange (a bitmap of listed line numbers) with parallel
 * BatchWriteItem — and only then flips the area code's pointer to it with ONE conditional
 * write (on the generation it replaced), then removes the area code's older generations
 * (the replaced one, and any an interrupted load left). A reader reads the pointer, then the exchange item of that generation; an absent
 * exchange item is confirmed by reading the pointer again (the generation it read may
 * have been replaced and removed in between; then it reads the new one). So a reader
 * sees the whole old snapshot or the whole new one, never a half-loaded one. Exchange items
 * are kept per warm instance by their (immutable) generation; the pointer never is.
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, putItems } from '../db/batch-write.js';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { queryAll } from '../db/query.js';
import { newId } from '../ids.js';
import { isListed, type ParsedSnapshot } from '../policy/dnc/snapshot-file.js';
import { RecentlyUsed } from '../recently-used.js';

export type DncFacts = { loaded: false } | { loaded: true; as_of: string; listed: boolean };

export interface DncPointer {
  area_code: string;
  generation: string;
  as_of: string;
  numbers: number;
  loaded_at: string;
}

class ConcurrentDncLoad extends Error {}

const T = () => tableName();
const PARALLEL = 8;

async function readPointer(areaCode: string): Promise<DncPointer | undefined> {
  const out = await db().send(new GetCommand({ TableName: T(), Key: platformKeys.dncPointer(areaCode), ConsistentRead: true }));
  return out.Item as DncPointer | undefined;
}

/** The exchange and line of `phone` (E.164 `+1…` or ten digits) in `areaCode`. */
function lineOf(areaCode: string, phone: string): { exchange: string; line: number } {
  const national = phone.startsWith('+1') ? phone.slice(2) : phone;
  if (!/^\d{10}$/.test(national) || !national.startsWith(areaCode)) throw new RangeError(`${phone} is not a number of area code ${areaCode}`);
  return { exchange: national.slice(3, 6), line: Number(national.slice(6)) };
}

/**
 * What the compliance engine needs about `phone` (E.164 `+1…` or ten digits) in its area
 * code's snapshot: nothing loaded, or the snapshot's as-of date and whether it lists the
 * number. Two GetItems (three when the number's exchange lists nobody); only the pointer
 * once this instance keeps the generation's exchange.
 * `seams.afterPointerRead` is a test seam (a reload completing between the two reads).
 */
export async function dncFacts(areaCode: string, phone: string, seams: { afterPointerRead?: () => Promise<void> } = {}): Promise<DncFacts> {
  lineOf(areaCode, phone); // a number of another area code is refused before any read
  const pointer = await readPointer(areaCode);
  await seams.afterPointerRead?.(); // test seam: a reload may complete here
  return dncFactsAfterPointer(areaCode, phone, pointer);
}

/** The pointer item's key, for a caller that reads it together with other items (then dncFactsAfterPointer). */
export const dncPointerKey = (areaCode: string) => platformKeys.dncPointer(areaCode);

/**
 * Exchange items kept per warm instance by generation: a generation's items are written
 * once, all before the pointer names it, and never changed (a reload writes a new
 * generation), so while a pointer just read names a generation, the item kept for it is
 * the item a read would return. null: confirmed to list nobody (absent while the pointer
 * still named that generation). The pointer itself is never kept: it is read on every call.
 */
const keptExchanges = new RecentlyUsed<string, Uint8Array | null>(2048); // ≤ 1,250 bytes each
const exchangeSlot = (areaCode: string, generation: string, exchange: string) => `${areaCode}|${generation}|${exchange}`;

/**
 * dncFacts from a pointer read (strongly consistently) by the caller: the exchange item of
 * its generation (kept, or read), confirmed by reading the pointer again when absent.
 */
export async function dncFactsAfterPointer(areaCode: string, phone: string, read: object | undefined): Promise<DncFacts> {
  const { exchange, line } = lineOf(areaCode, phone);
  let pointer = read as DncPointer | undefined;
  for (let attempt = 1; pointer; attempt++) {
    const slot = exchangeSlot(areaCode, pointer.generation, exchange);
    const kept = keptExchanges.get(slot);
    if (kept !== undefined) {
      return { loaded: true, as_of: pointer.as_of, listed: kept !== null && isListed(kept, line) };
    }
    const out = await db().send(
      new GetCommand({ TableName: T(), Key: platformKeys.dncExchange(areaCode, pointer.generation, exchange), ConsistentRead: true }),
    );
    if (out.Item) {
      const lines = Uint8Array.from(out.Item.lines as Uint8Array); // a copy: nothing of the response is held
      keptExchanges.set(slot, lines);
      return { loaded: true, as_of: pointer.as_of, listed: isListed(lines, line) };
    }
    const again = await readPointer(areaCode);
    if (!again || again.generation === pointer.generation || attempt >= 5) {
      if (again?.generation === pointer.generation) keptExchanges.set(slot, null);
      return again ? { loaded: true, as_of: again.as_of, listed: false } : { loaded: false };
    }
    pointer = again;
  }
  return { loaded: false };
}

/** Every loaded area code, by area code. */
export async function dncStatus(): Promise<DncPointer[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': platformKeys.dncPartition, ':prefix': platformKeys.dncPointersPrefix },
    ConsistentRead: true,
  });
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
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': platformKeys.dncPartition, ':prefix': platformKeys.dncGenerationsPrefix(areaCode) },
    ConsistentRead: true,
  });
  return items.map((item) => ({ generation: item.generation as string, exchanges: item.exchanges as string[] }));
}

/**
 * Replace the area code's snapshot, loaded at `at` (the generation's created_at, the
 * pointer's loaded_at). Returns the new pointer. A load that loses a race with
 * another load of the same area code removes what it wrote and throws ConcurrentDncLoad.
 */
export async function replaceDncSnapshot(areaCode: string, asOf: string, snapshot: ParsedSnapshot, at: Date): Promise<DncPointer> {
  const previous = await readPointer(areaCode);
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
