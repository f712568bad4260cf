/**
 * evaluate(inputs, at): may this call be placed at `at`, later, or never, and why.
 * Pure: every fact, including the instant, is an argument. Every failing rule adds its
 * reason; the outcome is the worst of them (block > defer > allow).
 *
 * A number outside the US and its territories is blocked (jurisdiction_unsupported) and
 * only the rules that are not US law are asked with it: the tenant's suppression list, the
 * compliance profile and the consent. The National DNC rules and every calling-time rule
 * (federal hours, state windows, the profile's window) are US-only or need a place we dial,
 * so they add nothing there (docs/decisions/calls-and-compliance.md, "Jurisdiction").
 *
 * A text (`channel: 'sms'`, see docs/decisions/messaging.md) is judged by the same rules, with consent scope
 * channels asked for `sms` and the calling-time rules applied to marketing texts only.
 */
import { calleeOf, jurisdictionReasons } from './callee.js';
import { consentReasons } from './consent.js';
import { deferReasonsAt } from './defer-rules.js';
import { dncReasons } from './dnc.js';
import { nextPermittedAt, SEARCH_HORIZON_DAYS } from './next-permitted.js';
import type { TimeContext } from './time-context.js';
import {
  type ComplianceDecision,
  type ComplianceInputs,
  type ComplianceReason,
  DEFER_CODES,
  type Disposition,
  type ReasonCode,
  RULE_SET_VERSION,
} from './types.js';

const DISPOSITION_OF: Readonly<Partial<Record<ReasonCode, Disposition>>> = {
  internal_dnc: 'dnc_hit',
  national_dnc: 'dnc_hit',
  dnc_no_san: 'scrub_blocked',
  dnc_registry_missing: 'scrub_blocked',
  dnc_registry_stale: 'scrub_blocked',
};
/** The first applicable disposition in this order wins. */
const DISPOSITION_ORDER: readonly Disposition[] = ['dnc_hit', 'scrub_blocked', 'blocked_by_policy'];

const isDefer = (r: ComplianceReason): boolean => (DEFER_CODES as readonly string[]).includes(r.code);

export function evaluate(inputs: ComplianceInputs, at: Date): ComplianceDecision {
  const atMs = at.getTime();
  if (Number.isNaN(atMs)) throw new RangeError('evaluate: `at` is not a valid date');
  const { contact, profile } = inputs;
  const callee = calleeOf(contact);

  const reasons: ComplianceReason[] = [...dncReasons(inputs, callee, atMs)];
  if (profile === null) {
    reasons.push({
      code: 'compliance_profile_missing',
      message: 'The agent version has no compliance profile, so the call cannot be judged: attach a compliance profile to the agent and publish a new version',
    });
  }
  const channel = inputs.channel ?? 'voice';
  reasons.push(...consentReasons(contact.consents, profile, atMs, channel), ...jurisdictionReasons(callee, contact.phone_e164));

  const ctx: TimeContext = {
    zones: callee.zones,
    states: callee.states,
    purpose: profile?.call_purpose ?? null,
    profileWindow: profile?.calling_window ?? null,
    subject: profile?.subject ?? null,
    sameSubjectAttempts: profile
      ? inputs.recent_attempts
          .filter((a) => a.subject === profile.subject)
          .map((a) => Date.parse(a.placed_at))
          .sort((a, b) => a - b)
      : [],
  };
  // A call that is never placed has no time to wait for. Texts: quiet hours and the state
  // and profile windows bind marketing texts only (an informational text — a reminder, a
  // code — may go at any hour), as they bind telephone solicitations.
  const timed = callee.us && (channel === 'voice' || profile?.call_purpose === 'marketing');
  const deferReasons = timed ? deferReasonsAt(ctx, atMs) : [];
  reasons.push(...deferReasons);

  let next: number | null = null;
  if (deferReasons.length > 0) {
    next = nextPermittedAt(ctx, atMs);
    if (next === null) {
      reasons.push({
        code: 'no_permitted_time',
        message: `No instant in the next ${SEARCH_HORIZON_DAYS} days satisfies every calling-time rule in ${callee.zones.join(', ')}: widen the compliance profile's calling window or correct the contact's timezone`,
      });
    }
  }

  const blocking = reasons.filter((r) => !isDefer(r));
  const outcome = blocking.length > 0 ? 'block' : deferReasons.length > 0 ? 'defer' : 'allow';
  const applicable = new Set(blocking.map((r) => DISPOSITION_OF[r.code] ?? 'blocked_by_policy'));
  return {
    outcome,
    disposition: outcome === 'block' ? DISPOSITION_ORDER.find((d) => applicable.has(d))! : null,
    reasons,
    next_permitted_at: outcome === 'defer' && next !== null ? new Date(next).toISOString() : null,
    callee: { zones: callee.zones, states: callee.states },
    call_purpose: profile?.call_purpose ?? null,
    evaluated_at: at.toISOString(),
    rule_set_version: RULE_SET_VERSION,
  };
}
