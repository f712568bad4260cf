/**
 * Which consent is strongest, as a pure rule: pewc > pec > ebr > transactional, counting
 * only records that are valid now (not expired). Used to derive best_consent_class.
 */
import type { CONSENT_BASES } from '../schemas/contacts.js';

export type ConsentBasis = (typeof CONSENT_BASES)[number];

const STRENGTH: Record<ConsentBasis, number> = { pewc: 4, pec: 3, ebr: 2, transactional: 1 };

export interface ConsentGrant {
  basis: ConsentBasis;
  expires_at: string | null;
}

export const isConsentValid = (g: ConsentGrant, now: Date): boolean =>
  g.expires_at === null || Date.parse(g.expires_at) > now.getTime();

export function bestConsentClass(grants: readonly ConsentGrant[], now: Date): ConsentBasis | null {
  let best: ConsentBasis | null = null;
  for (const g of grants) {
    if (!isConsentValid(g, now)) continue;
    if (best === null || STRENGTH[g.basis] > STRENGTH[best]) best = g.basis;
  }
  return best;
}
