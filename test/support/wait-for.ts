/**
 * Polls `condition` until it returns a truthy value (which is returned) or the deadline
 * passes. A condition that throws (e.g. an `expect`) counts as "not yet"; on timeout the
 * last error is reported. Use it instead of sleeping and hoping.
 */
export interface WaitForOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** What was awaited, for the timeout message. */
  message?: string;
}

export async function waitFor<T>(condition: () => T | Promise<T>, opts: WaitForOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let lastValue: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
      lastValue = value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const what = opts.message ?? 'condition';
      const detail = lastError instanceof Error ? `: ${lastError.message}` : ` (last value: ${JSON.stringify(lastValue)})`;
      throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms${detail}`, { cause: lastError });
    }
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}
