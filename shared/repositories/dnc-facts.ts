/**
 * What a judgement reads of the National DNC snapshots (dnc-snapshots.ts loads them): the
 * area code's pointer, then the exchange item of the generation it names. An absent exchange
 * item is confirmed by reading the pointer again (the generation it read may have been
 * replaced and removed in between; then it reads the new one), so a reader sees the whole old
 * snapshot or the whole new one, never a half-loaded one. Exchange items are kept per warm
 * instance by their (immutable) generation; the pointer never is. Apart from the loads so
 * the call and text paths' bundles carry none of the batch writes.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { isListed } from '../policy/dnc/snapshot-file.js';
import { RecentlyUsed } from '../recently-used.js';

export type DncFacts = { loaded: false } | { loaded: true; as_of: string; listed: boolean };

export interface DncPointer {
  area_code: string;
  generation: string;
  as_of: string;
  numbers: number;
  loaded_at: string;
}

/** The area code's pointer (its live generation), strongly consistent; undefined: none loaded. */
export async function readDncPointer(areaCode: string): Promise<DncPointer | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.dncPointer(areaCode), ConsistentRead: true }));
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
  const pointer = await readDncPointer(areaCode);
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
      new GetCommand({ TableName: tableName(), Key: platformKeys.dncExchange(areaCode, pointer.generation, exchange), ConsistentRead: true }),
    );
    if (out.Item) {
      const lines = Uint8Array.from(out.Item.lines as Uint8Array); // a copy: nothing of the response is held
      keptExchanges.set(slot, lines);
      return { loaded: true, as_of: pointer.as_of, listed: isListed(lines, line) };
    }
    const again = await readDncPointer(areaCode);
    if (!again || again.generation === pointer.generation || attempt >= 5) {
      if (again?.generation === pointer.generation) keptExchanges.set(slot, null);
      return again ? { loaded: true, as_of: again.as_of, listed: false } : { loaded: false };
    }
    pointer = again;
  }
  return { loaded: false };
}
