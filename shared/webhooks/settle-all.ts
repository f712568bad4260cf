/**
 * Waits for every write started beside other work (the relay's marker deletes, a batch's
 * ledger transactions) and then fails with the first failure, if any: nothing is left running
 * when the caller answers, on Lambda above all, where a pending write would be frozen.
 */
export async function settleAll(writes: readonly Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(writes)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** A write started now and awaited later (by settleAll): until then its failure must not count as unhandled. */
export function startedWrite<T>(write: Promise<T>): Promise<T> {
  write.catch(() => {});
  return write;
}
