/**
 * Which consent is strongest, as a pure rule: pewc > pec > ebr > transactional, counting
 * only records that are valid now (not expired). Used to derive best_consent_class.
 */

export const CONSENT_BASES = ['pewc', 'pec', 'ebr', 'transactional'] as const;

export type ConsentBasis = (typeof CONSENT_BASES)[number];

const STRENGTH: Record<ConsentBasis, number> = { pewc: 4, pec: 3, ebr: 2, transactional: 1 };

export interface ConsentGrant {
  basis: ConsentBasis;
  expires_at: string | null;
}

export const isConsentValid = (g: ConsentGrant, now: Date): boolean => g.expires_at === null || Date.parse(g.expires_at) > now.getTime();

export function bestConsentClass(grants: readonly ConsentGrant[], now: Date): ConsentBasis | null {
  let best: ConsentBasis | null = null;
  for (const g of grants) {
    if (!isConsentValid(g, now)) continue;
    if (best === null || STRENGTH[g.basis] > STRENGTH[best]) best = g.basis;
  }
  return best;
}

/** True when grant `a` stays valid at least as long as `b` (no expiry outlasts every expiry). */
const outlasts = (a: ConsentGrant, b: ConsentGrant): boolean =>
  b.expires_at !== null && (a.expires_at === null || Date.parse(a.expires_at) > Date.parse(b.expires_at));

/**
 * The fewest grants that give the same bestConsentClass at EVERY instant: per basis, the
 * one that lasts longest (a non-expiring grant beats any expiring one; among expiring ones
 * the latest expiry wins; on a tie the earlier grant is kept). A basis is valid at `now`
 * exactly when its longest-lasting grant is, so at most one grant per basis — four in
 * all — is ever needed. Order of first appearance is kept.
 */
export function compactGrants<G extends ConsentGrant>(grants: readonly G[]): G[] {
  const kept = new Map<ConsentBasis, G>();
  for (const g of grants) {
    const current = kept.get(g.basis);
    if (!current || outlasts(g, current)) kept.set(g.basis, g);
  }
  return [...kept.values()];
}
