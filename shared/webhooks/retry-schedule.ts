/**
 * When a failed webhook is tried again, as a pure module.
 *
 * The schedule lists the delay before each attempt, in seconds: the first is sent at once,
 * then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (in the spirit of Standard
 * Webhooks), about 27.6 hours in all before an event is given up on. WEBHOOK_RETRY_SCHEDULE_S
 * replaces it (tests and the local runtime use short ones); a malformed value stops the
 * process at start-up rather than quietly falling back.
 */
export const DEFAULT_RETRY_SCHEDULE_S = [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as const;

const VARIABLE = 'WEBHOOK_RETRY_SCHEDULE_S';
const MAX_ENTRIES = 20;
const MAX_DELAY_S = 86_400;

export function retrySchedule(env: NodeJS.ProcessEnv = process.env): number[] {
  const raw = env[VARIABLE];
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_RETRY_SCHEDULE_S];
  const entries = raw.split(',').map((s) => s.trim());
  const bad = (why: string) =>
    new Error(`${VARIABLE}=${JSON.stringify(raw)} is not a retry schedule: ${why} (expected comma-separated whole seconds, e.g. "0,5,300")`);
  if (entries.length > MAX_ENTRIES) throw bad(`${entries.length} entries, at most ${MAX_ENTRIES} are allowed`);
  return entries.map((entry) => {
    if (!/^\d+$/.test(entry)) throw bad(`${JSON.stringify(entry)} is not a non-negative whole number`);
    const seconds = Number(entry);
    if (seconds > MAX_DELAY_S) throw bad(`${seconds} is more than ${MAX_DELAY_S} seconds (a day)`);
    return seconds;
  });
}

/** Seconds to wait before attempt number attemptsMade + 1, or null once the schedule is used up. */
export function nextAttemptDelay(schedule: readonly number[], attemptsMade: number): number | null {
  if (!Number.isSafeInteger(attemptsMade) || attemptsMade < 0) throw new RangeError(`attemptsMade must be a whole number ≥ 0, not ${attemptsMade}`);
  return schedule[attemptsMade] ?? null;
}
