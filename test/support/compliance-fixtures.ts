/**
 * Compliance-engine inputs for tests and the benchmark: a baseline that is allowed
 * (marketing to a New York number, covering pewc, SAN and a fresh unlisted snapshot),
 * and small builders to change one fact at a time.
 */
import type { ComplianceInputs, ConsentFacts, ProfileFacts } from '../../shared/policy/compliance/types.js';

export const SUBJECT = 'solar_quotes';
export const SELLER = 'Acme Solar';

export const pewc = (over: Partial<ConsentFacts> = {}): ConsentFacts => ({
  basis: 'pewc',
  scope: { purposes: [SUBJECT] },
  captured_at: '2026-01-01T00:00:00Z',
  expires_at: null,
  ...over,
});

export const marketing: ProfileFacts = { call_purpose: 'marketing', subject: SUBJECT, seller_name: SELLER, calling_window: null };
export const informational: ProfileFacts = { ...marketing, call_purpose: 'informational' };

export interface Change {
  phone?: string;
  timezone?: string | null;
  jurisdictions?: string[];
  consents?: ConsentFacts[];
  profile?: ProfileFacts | null;
  sanAreaCodes?: string[];
  suppressed?: boolean;
  snapshot?: ComplianceInputs['dnc_snapshot'];
  attempts?: ComplianceInputs['recent_attempts'];
}

/**
 * What the stored facts really are for a number outside the US: no SAN can cover its area
 * code (the FTC sells SANs for US area codes only) and no snapshot is ever loaded for it
 * (`inputs()` would otherwise give every area code both, which hides rules that run there).
 */
export const unscrubbable: Pick<Change, 'sanAreaCodes' | 'snapshot'> = { sanAreaCodes: ['212'], snapshot: { loaded: false } };

/** The baseline, with the number's own area code covered by a SAN unless told otherwise. */
export function inputs(c: Change = {}): ComplianceInputs {
  const phone = c.phone ?? '+12125550123';
  return {
    contact: { phone_e164: phone, timezone: c.timezone ?? null, jurisdictions: c.jurisdictions ?? [], consents: c.consents ?? [pewc()] },
    profile: c.profile === undefined ? marketing : c.profile,
    san_refs: [{ san: 'SAN-1', area_codes: c.sanAreaCodes ?? [phone.slice(2, 5)] }],
    suppressed: c.suppressed ?? false,
    dnc_snapshot: c.snapshot ?? { loaded: true, as_of: '2026-11-01', listed: false },
    recent_attempts: c.attempts ?? [],
  };
}
