/** Small statistics helpers for the benchmarks. */
export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] ?? NaN;
};
export const median = (values: number[]): number => percentile(values, 50);
export const fmt = (n: number, digits = 1): string => n.toFixed(digits);

/** Runs `fn` over `items` with at most `concurrency` in flight. */
export async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  });
  await Promise.all(workers);
}

/** The most instants in any half-open window [t, t + widthMs): a carrier's sliding second, not an epoch one. */
export function maxInAnyWindow(instants: readonly number[], widthMs = 1000): number {
  const sorted = [...instants].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= widthMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** How many instants fall in each one-second bucket from the first instant (epoch ms in, counts out). */
export function perSecond(instants: readonly number[]): number[] {
  if (instants.length === 0) return [];
  const first = Math.min(...instants);
  const counts = new Array<number>(Math.floor((Math.max(...instants) - first) / 1000) + 1).fill(0);
  for (const t of instants) counts[Math.floor((t - first) / 1000)]!++;
  return counts;
}
