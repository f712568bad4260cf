/**
 * Consent rules: is there a consent valid at the instant, with a basis strong enough for
 * the call's purpose, whose scope covers this call? One cascade, so one reason at most.
 */

import { canonicalJson } from '../../canonical-json.js';
import type { ConsentBasis } from '../consent-strength.js';
import type { CallPurpose, Channel, ComplianceReason, ConsentFacts, ProfileFacts } from './types.js';

/** ebr is never enough: the calls are made with an artificial voice. */
const SUFFICIENT_BASES: Readonly<Record<CallPurpose, readonly ConsentBasis[]>> = {
  marketing: ['pewc'],
  informational: ['pewc', 'pec', 'transactional'],
};

/** Captured at or before the instant and not yet expired (an expiry at the instant has passed). */
const isValidAt = (c: ConsentFacts, atMs: number): boolean => Date.parse(c.captured_at) <= atMs && (c.expires_at === null || Date.parse(c.expires_at) > atMs);

const stringList = (v: unknown): string[] | null => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : null);

/**
 * The scope covers the call (or text) when its purposes name the profile's subject, its
 * channels (when given) include the channel judged (voice, or sms for a text), and its seller (when given) is the profile's seller ignoring
 * case. A key that is present but malformed covers nothing: the scope is evidence.
 */
function scopeCovers(scope: Readonly<Record<string, unknown>>, profile: ProfileFacts, channel: Channel = 'voice'): boolean {
  if (!stringList(scope.purposes)?.includes(profile.subject)) return false;
  if (scope.channels !== undefined && !stringList(scope.channels)?.includes(channel)) return false;
  if (scope.seller !== undefined && (typeof scope.seller !== 'string' || scope.seller.toLowerCase() !== profile.seller_name.toLowerCase())) return false;
  return true;
}

/** A valid pewc consent covering the call: what overrides a National DNC listing. */
export const hasCoveringPewc = (consents: readonly ConsentFacts[], profile: ProfileFacts, atMs: number, channel: Channel = 'voice'): boolean =>
  consents.some((c) => c.basis === 'pewc' && isValidAt(c, atMs) && scopeCovers(c.scope, profile, channel));

export function consentReasons(consents: readonly ConsentFacts[], profile: ProfileFacts | null, atMs: number, channel: Channel = 'voice'): ComplianceReason[] {
  const valid = consents.filter((c) => isValidAt(c, atMs));
  if (valid.length === 0) {
    return [
      {
        code: 'consent_missing',
        message: 'No consent record is valid at this time (none on file, or all expired): capture consent from the contact before calling',
      },
    ];
  }
  // Which basis suffices depends on the purpose, which only the profile knows.
  if (profile === null) return [];
  const bases = SUFFICIENT_BASES[profile.call_purpose];
  const sufficient = valid.filter((c) => bases.includes(c.basis));
  if (sufficient.length === 0) {
    return [
      {
        code: 'consent_insufficient',
        message: `${profile.call_purpose === 'marketing' ? 'Marketing' : 'Informational'} calls with an artificial voice need ${bases.join(', ')} consent (ebr never suffices); the contact's valid consents are ${[...new Set(valid.map((c) => c.basis))].join(', ')}: capture a sufficient consent`,
      },
    ];
  }
  if (!sufficient.some((c) => scopeCovers(c.scope, profile, channel))) {
    return [
      {
        code: 'consent_scope_mismatch',
        subject: profile.subject,
        message: `No sufficient consent covers this ${channel === 'sms' ? 'text' : 'call'}: its scope.purposes must include "${profile.subject}", its scope.channels (when given) must include "${channel}" and its scope.seller (when given) must be "${profile.seller_name}"; capture consent for this purpose and seller`,
      },
    ];
  }
  return [];
}

/**
 * Whether `fact` can change any judgement of a contact whose consents include `facts`: not when
 * one of them has its basis and scope and is valid whenever it is (captured no later, expiring
 * no sooner) — every rule above then reads the same with or without it.
 */
export const addsToConsents = (facts: readonly ConsentFacts[], fact: ConsentFacts): boolean =>
  !facts.some(
    (f) =>
      f.basis === fact.basis &&
      Date.parse(f.captured_at) <= Date.parse(fact.captured_at) &&
      (f.expires_at === null || (fact.expires_at !== null && Date.parse(f.expires_at) >= Date.parse(fact.expires_at))) &&
      canonicalJson(f.scope) === canonicalJson(fact.scope),
  );
