/**
 * Do-not-call rules: the tenant's own suppression list (every call), and for marketing
 * calls the National DNC Registry as seen through the area code's snapshot and the
 * calling account's SANs (the FTC only lets a SAN holder scrub the area codes it paid for).
 * The registry, its SANs and its snapshots exist for US area codes only, so the registry
 * rules are asked only of US numbers: a Canadian, Caribbean, toll-free or non-+1 number
 * is blocked as jurisdiction_unsupported (blocked_by_policy) and nothing here applies.
 */

import type { Callee } from './callee.js';
import { hasCoveringPewc } from './consent.js';
import type { ComplianceInputs, ComplianceReason } from './types.js';

const DAY_MS = 86_400_000;
/** A snapshot older than this at the call is stale (the FTC requires a scrub at least every 31 days). */
const SNAPSHOT_MAX_AGE_DAYS = 31;

export function dncReasons(inputs: ComplianceInputs, callee: Pick<Callee, 'place' | 'us'>, atMs: number): ComplianceReason[] {
  const reasons: ComplianceReason[] = [];
  if (inputs.suppressed) {
    reasons.push({
      code: 'internal_dnc',
      message: "The number is on this tenant's suppression list: do not call it; lift the entry only if the person asks to be called again",
    });
  }
  const profile = inputs.profile;
  const areaCode = callee.place.areaCode;
  if (profile?.call_purpose !== 'marketing' || !callee.us || areaCode === null) return reasons;
  const snapshot = inputs.dnc_snapshot;
  if (snapshot.loaded && snapshot.listed && !hasCoveringPewc(inputs.contact.consents, profile, atMs, inputs.channel ?? 'voice')) {
    reasons.push({
      code: 'national_dnc',
      area_code: areaCode,
      as_of: snapshot.as_of,
      message: `The number is on the National Do Not Call Registry (area code ${areaCode} snapshot of ${snapshot.as_of}) and no valid pewc consent covers this call: capture prior express written consent for "${profile.subject}" from ${profile.seller_name}, or do not call`,
    });
  }
  if (!inputs.san_refs.some((s) => s.area_codes.includes(areaCode))) {
    reasons.push({
      code: 'dnc_no_san',
      area_code: areaCode,
      message: `No SAN of the calling telephony account covers area code ${areaCode}: add the area code to the account's ftc_san_refs after subscribing to it at the National DNC Registry`,
    });
  }
  if (!snapshot.loaded) {
    reasons.push({
      code: 'dnc_registry_missing',
      area_code: areaCode,
      message: `No National DNC snapshot is loaded for area code ${areaCode}: load the registry's download for it before placing marketing calls there`,
    });
  } else if (atMs - Date.parse(snapshot.as_of) > SNAPSHOT_MAX_AGE_DAYS * DAY_MS) {
    reasons.push({
      code: 'dnc_registry_stale',
      area_code: areaCode,
      as_of: snapshot.as_of,
      message: `The National DNC snapshot for area code ${areaCode} is from ${snapshot.as_of}, more than ${SNAPSHOT_MAX_AGE_DAYS} days before this call: load a fresh download`,
    });
  }
  return reasons;
}
