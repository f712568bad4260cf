/**
 * What this process lets run at once of one kind of delivery work: POSTs to one endpoint (as many
 * as its connection pool keeps sockets), and the bookkeeping writes (a batch's ledger transactions,
 * the relay's marker deletes), every batch's and relay run's together.
 */

/** Slots taken and waited for (in order), by key. */
export type Slots = Map<string, { free: number; waiting: (() => void)[] }>;

/** Wait for one of `capacity` slots under `key`; answers the function that gives it back (once). */
export async function takeSlot(slots: Slots, key: string, capacity: number): Promise<() => void> {
  const pool = slots.get(key) ?? { free: capacity, waiting: [] };
  slots.set(key, pool);
  if (pool.free > 0) pool.free--;
  else await new Promise<void>((resolve) => pool.waiting.push(resolve));
  let given = false;
  return () => {
    if (given) return;
    given = true;
    const next = pool.waiting.shift();
    if (next) next();
    else if (++pool.free === capacity) slots.delete(key);
  };
}

/**
 * Bookkeeping writes in flight at once. A ledger write or a marker delete follows work already done
 * (the POST, the send); a lease is what the next POSTs wait for. Where the table runs one write at a
 * time (DynamoDB Local, shared by the local poller's batches and the relay) a lease asked behind
 * twenty queued ledger writes and marker deletes waited for them all, and a burst's POSTs stalled
 * while the database caught up on bookkeeping; with at most this many ahead of it a lease waits for
 * few, and the bookkeeping's total work is the same. A Lambda container works one batch (three ledger
 * writes at most) or one relay run (a delete a shard at a time), so on AWS it hardly binds.
 */
const BOOKKEEPING_AT_ONCE = 3;
const bookkeepingSlots: Slots = new Map();

/** Runs `write` once a bookkeeping slot is free. */
export async function bookkeeping<T>(write: () => Promise<T>): Promise<T> {
  const free = await takeSlot(bookkeepingSlots, 'bookkeeping', BOOKKEEPING_AT_ONCE);
  try {
    return await write();
  } finally {
    free();
  }
}
