/**
 * The caller number a call would be placed from, and what its absence does to the
 * compliance decision (pure; preflight, POST /v1/calls and the dispatcher share it).
 *
 * The choice is chooseCallerNumber's over the tenant's numbers, with the accounts that
 * are verified or mock_verified. The calling account's SAN refs are an engine input, so the
 * choice comes first:
 *  - a number is usable now → its account's SAN refs;
 *  - numbers exist but all are at their daily cap → the number chosen when caps reset
 *    (`frees_at`), and its account's SAN refs; the decision gains a defer reason
 *    `no_caller_number` until then;
 *  - the tenant has no number that could ever place the call → the SAN refs of all its
 *    accounts (the scrub question is still the tenant's), and a block reason
 *    `no_caller_number` (blocked_by_policy).
 * Merging keeps the engine's rules: any block → block, with the first applicable
 * disposition of dnc_hit, scrub_blocked, blocked_by_policy; else any defer → defer, with
 * next_permitted_at the earliest instant at or after both the engine's and `frees_at` when
 * no defer rule holds (the engine is asked again at that instant); else allow.
 */
import { type CandidateNumber, chooseCallerNumber } from '../policy/caller-number.js';
import { evaluate } from '../policy/compliance/evaluate.js';
import type { ComplianceDecision, ComplianceInputs, Disposition, SanRefFacts } from '../policy/compliance/types.js';
import type { CallDecision, CallerReason } from '../schemas/calls.js';

interface CallerAccount {
  id: string;
  verification_status: string;
  ftc_san_refs: readonly SanRefFacts[];
}

export interface CallerPool<N extends CandidateNumber = CandidateNumber> {
  numbers: readonly N[];
  accounts: readonly CallerAccount[];
}

export type CallerOutcome<N extends CandidateNumber = CandidateNumber> =
  | { outcome: 'chosen'; number: N; san_refs: SanRefFacts[] }
  /** Every usable number is at its daily cap until `frees_at`; `next` is the number chosen then. */
  | { outcome: 'none_usable'; frees_at: string; next: N | null; san_refs: SanRefFacts[] }
  | { outcome: 'none_at_all'; san_refs: SanRefFacts[] };

const VERIFIED = new Set(['verified', 'mock_verified']);
const DISPOSITION_ORDER: readonly Disposition[] = ['dnc_hit', 'scrub_blocked', 'blocked_by_policy'];

const nextUtcMidnight = (at: Date): string => {
  const d = new Date(`${at.toISOString().slice(0, 10)}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
};

export function decideCaller<N extends CandidateNumber>(pool: CallerPool<N>, calleeE164: string, at: Date): CallerOutcome<N> {
  const verified = new Set(pool.accounts.filter((a) => VERIFIED.has(a.verification_status)).map((a) => a.id));
  const sanOf = (accountId: string): SanRefFacts[] => [...(pool.accounts.find((a) => a.id === accountId)?.ftc_san_refs ?? [])];
  const choice = chooseCallerNumber(pool.numbers, verified, calleeE164, at);
  if (choice.outcome === 'chosen') return { outcome: 'chosen', number: choice.number, san_refs: sanOf(choice.number.telephony_account_id) };
  if (choice.outcome === 'none_usable') {
    const frees_at = choice.frees_at ?? nextUtcMidnight(at);
    const then = chooseCallerNumber(pool.numbers, verified, calleeE164, new Date(frees_at));
    const next = then.outcome === 'chosen' ? then.number : null;
    return { outcome: 'none_usable', frees_at, next, san_refs: next ? sanOf(next.telephony_account_id) : pool.accounts.flatMap((a) => a.ftc_san_refs) };
  }
  return { outcome: 'none_at_all', san_refs: pool.accounts.flatMap((a) => a.ftc_san_refs) };
}

/** The reason the caller choice adds, if any. */
export function callerReason(caller: CallerOutcome): CallerReason | null {
  if (caller.outcome === 'chosen') return null;
  if (caller.outcome === 'none_usable') {
    return {
      code: 'no_caller_number',
      until: caller.frees_at,
      message: `Every number that may place this call has reached its daily dial cap: the call waits until ${caller.frees_at}, when the caps reset (raise a number's daily_dial_cap or add a number to call sooner)`,
    };
  }
  return {
    code: 'no_caller_number',
    message:
      'The tenant has no number that can place this call (an active voice number on a verified telephony account, reputation clean or at_risk): add or verify one, then queue the call again',
  };
}

/**
 * The engine's decision with the caller choice merged in. `inputs` are the ones the engine
 * judged, so a deferral past `frees_at` can be judged again at that instant (pure).
 */
export function mergeCallerDecision(decision: ComplianceDecision, caller: CallerOutcome, inputs: ComplianceInputs): CallDecision {
  const reason = callerReason(caller);
  if (!reason || caller.outcome === 'chosen') return decision;
  const reasons = [...decision.reasons, reason];
  if (caller.outcome === 'none_at_all' || decision.outcome === 'block') {
    const applicable = new Set<Disposition>(decision.disposition ? [decision.disposition, 'blocked_by_policy'] : ['blocked_by_policy']);
    return { ...decision, outcome: 'block', disposition: DISPOSITION_ORDER.find((d) => applicable.has(d))!, next_permitted_at: null, reasons };
  }
  // allow or defer, and the caps free up at frees_at: the earliest instant ≥ both when the engine allows.
  const earliest = Math.max(Date.parse(decision.next_permitted_at ?? decision.evaluated_at), Date.parse(caller.frees_at));
  const then = evaluate(inputs, new Date(earliest));
  if (then.outcome === 'block') {
    // No permitted instant after the caps reset within the engine's horizon.
    return {
      ...decision,
      outcome: 'block',
      disposition: 'blocked_by_policy',
      next_permitted_at: null,
      reasons: [...reasons, ...then.reasons.filter((r) => r.code === 'no_permitted_time')],
    };
  }
  const next = then.outcome === 'allow' ? new Date(earliest).toISOString() : then.next_permitted_at;
  return { ...decision, outcome: 'defer', disposition: null, next_permitted_at: next, reasons };
}
