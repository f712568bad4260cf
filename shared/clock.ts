/**
 * The platform's clock for time rules (queuing, dispatch, deferrals, the reconciler): every
 * "now" those rules use comes from `now()`, so tests can move time instead of sleeping.
 *
 * `setClockOffsetForTests(ms)` shifts now() by `ms` for the whole process. It works only off
 * Lambda (AWS_LAMBDA_FUNCTION_NAME unset): the local stack's workers, scheduler and routes
 * run in the test's own process, so a test that moves the clock moves theirs too. On Lambda
 * it throws, so a deployed function can never be made to judge calls at another time.
 */
// Kept on globalThis so every copy of this module in the process (a test's import and the
// local runtime's dynamically imported handlers) reads the same offset.
const holder = globalThis as typeof globalThis & { __platformClockOffsetMs?: number };
const offset = () => holder.__platformClockOffsetMs ?? 0;

export const now = (): Date => new Date(Date.now() + offset());

const onLambda = () => Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);

/** Test hook: now() = real time + `ms` (0 resets). Refused on Lambda. */
export function setClockOffsetForTests(ms: number): void {
  if (onLambda()) throw new Error('the clock offset is a test hook and is refused on Lambda');
  holder.__platformClockOffsetMs = ms;
}

/** Test hook: move the clock forward by `ms`. */
export const advanceClockForTests = (ms: number): void => setClockOffsetForTests(offset() + ms);

export const clockOffsetMs = (): number => offset();
