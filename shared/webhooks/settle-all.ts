/**
 * Waits for every write started beside other work (the relay's marker deletes, a batch's
 * ledger transactions) and then fails with the first failure, if any: nothing is left running
 * when the caller answers, on Lambda above all, where a pending write would be frozen.
 */
export async function settleAll(writes: readonly Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(writes)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Work started now beside other work and awaited later (a write by settleAll, the relay's next read): until then its failure must not count as unhandled. */
export function startedAside<T>(work: Promise<T>): Promise<T> {
  work.catch(() => {});
  return work;
}
