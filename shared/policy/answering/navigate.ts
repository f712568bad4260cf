/**
 * How a caller moves through a step list. Semantics (docs/decisions/telephony.md, "Answering policies"):
 *   - a menu plays its prompt and waits for one key: a branch key runs that branch; any
 *     other key is an invalid attempt (the prompt replays) until max_invalid_attempts are
 *     spent, then timeout_branch runs; no key before timeout_seconds runs timeout_branch;
 *   - ai, voicemail and hangup end the walk; ring_humans ends it when someone answers,
 *     otherwise the next step runs (nextStepPath: a branch that runs out continues after
 *     its menu); a spent top-level list ends the call.
 * `pressKey` is one carrier round trip (a Gather callback); `navigate` replays a whole
 * sequence of presses without a call (the simulate endpoint, the sandbox's dry runs).
 */
import { type AnyStep, type DtmfKey, isDtmfKey, type MenuStepOf, type PolicyDocument } from './model.js';
import { type ScheduleDecision, type StepListName, scheduleAt } from './schedule.js';
import { encodeStepPath, listPath, nextStepPath, type PolicyPath, resolveStep } from './step-path.js';

export type KeyOutcome =
  | { outcome: 'branch'; key: DtmfKey; next: PolicyPath }
  /** The prompt replays; the caller has now made `invalid_attempts` invalid presses. */
  | { outcome: 'invalid'; invalid_attempts: number; next: PolicyPath }
  | { outcome: 'invalid_exhausted'; invalid_attempts: number; next: PolicyPath }
  | { outcome: 'timeout'; next: PolicyPath };

/**
 * What one key press (or none: `digit` null or empty) at the menu at `menuPath` leads to,
 * given the invalid presses already made there.
 */
export function pressKey(menu: MenuStepOf<unknown>, menuPath: PolicyPath, digit: string | null, invalidAttempts: number): KeyOutcome {
  const timeoutBranch = [...menuPath, 'timeout_branch', 0];
  if (digit === null || digit === '') return { outcome: 'timeout', next: timeoutBranch };
  if (isDtmfKey(digit) && menu.branches[digit]) return { outcome: 'branch', key: digit, next: [...menuPath, 'branches', digit, 0] };
  const spent = invalidAttempts + 1;
  return spent >= menu.max_invalid_attempts
    ? { outcome: 'invalid_exhausted', invalid_attempts: spent, next: timeoutBranch }
    : { outcome: 'invalid', invalid_attempts: spent, next: menuPath };
}

type TraceEntry =
  | { step_path: string; path: PolicyPath; type: 'menu'; digit: string | null; outcome: KeyOutcome['outcome']; invalid_attempts: number }
  | { step_path: string; path: PolicyPath; type: 'ring_humans'; rep_ids: string[]; timeout_seconds: number; outcome: 'answered' | 'no_answer' }
  | { step_path: string; path: PolicyPath; type: 'ai' | 'voicemail' | 'hangup' };

/** Where the walk ended: the step that ends it, or `end` when the list ran out. */
type Terminal<S> =
  | { type: 'end'; step_path: null }
  | { type: 'ai' | 'ring_humans' | 'voicemail' | 'hangup'; step_path: string; step: Exclude<S, { type: 'menu' }>; on_no_answer?: string | null };

export interface Navigation<S> {
  trace: TraceEntry[];
  terminal: Terminal<S>;
  /** Presses left over once the walk ended (a caller pressing keys during a transfer). */
  unused_digits: string[];
}

export interface NavigateOptions {
  /** Whether a ring_humans step is answered (default true); false follows the no-answer path. */
  ringsAnswered?: boolean;
}

export function navigate<S extends AnyStep>(
  policy: PolicyDocument<S>,
  list: StepListName,
  digits: readonly string[],
  opts: NavigateOptions = {},
): Navigation<S> {
  const trace: TraceEntry[] = [];
  let next = 0;
  let path: PolicyPath | null = listPath(list);
  for (;;) {
    const step = path ? resolveStep(policy, path) : undefined;
    if (!path || !step) return { trace, terminal: { type: 'end', step_path: null }, unused_digits: digits.slice(next) };
    const step_path = encodeStepPath(path);
    if (step.type === 'menu') {
      const menu = step as MenuStepOf<S>;
      let invalid = 0;
      for (;;) {
        const digit = next < digits.length ? digits[next++]! : null;
        const r = pressKey(menu, path, digit, invalid);
        invalid = r.outcome === 'invalid' || r.outcome === 'invalid_exhausted' ? r.invalid_attempts : invalid;
        trace.push({ step_path, path, type: 'menu', digit, outcome: r.outcome, invalid_attempts: invalid });
        if (r.outcome !== 'invalid') {
          path = r.next;
          break;
        }
      }
      continue;
    }
    const terminalStep = step as Exclude<S, { type: 'menu' }>;
    if (step.type === 'ring_humans') {
      const answered = opts.ringsAnswered ?? true;
      trace.push({
        step_path,
        path,
        type: 'ring_humans',
        rep_ids: step.rep_ids,
        timeout_seconds: step.timeout_seconds,
        outcome: answered ? 'answered' : 'no_answer',
      });
      const after: PolicyPath | null = nextStepPath(policy, path);
      if (!answered) {
        path = after;
        continue;
      }
      return {
        trace,
        terminal: { type: 'ring_humans', step_path, step: terminalStep, on_no_answer: after && encodeStepPath(after) },
        unused_digits: digits.slice(next),
      };
    }
    trace.push({ step_path, path, type: step.type });
    return { trace, terminal: { type: step.type, step_path, step: terminalStep }, unused_digits: digits.slice(next) };
  }
}

export interface Simulation<S> extends Navigation<S> {
  schedule: ScheduleDecision;
}

/** The whole answer for instant `at` and a sequence of presses, without a call. */
export function simulate<S extends AnyStep>(policy: PolicyDocument<S>, at: Date, digits: readonly string[], opts: NavigateOptions = {}): Simulation<S> {
  const schedule = scheduleAt(policy, at);
  return { schedule, ...navigate(policy, schedule.list, digits, opts) };
}
