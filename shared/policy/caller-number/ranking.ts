/**
 * What choosing one of the tenant's numbers has in common, for a call (choose.ts) and for a
 * text (shared/messages/sender-number.ts): which numbers may be used at all, the area code a
 * preference compares, and "best rank first, then the oldest".
 */
export interface RankedNumber {
  phone_e164: string;
  telephony_account_id: string;
  status: string;
  capabilities: readonly string[];
  reputation_state: string;
  created_at: string;
}

/** Active, with the capability, on a verified (or mock_verified) account, reputation clean or at_risk. */
export const mayUse = (n: RankedNumber, capability: 'voice' | 'sms', verifiedAccounts: ReadonlySet<string>): boolean =>
  n.status === 'active' &&
  n.capabilities.includes(capability) &&
  verifiedAccounts.has(n.telephony_account_id) &&
  (n.reputation_state === 'clean' || n.reputation_state === 'at_risk');

/** The NANP area code of a +1 number, else null. */
export const areaCodeOf = (e164: string): string | null => /^\+1(\d{3})\d{7}$/.exec(e164)?.[1] ?? null;

/** Sorted by `rank` (a tuple compared left to right, lower first), ties to the oldest number. */
export function bestFirst<N extends RankedNumber>(numbers: readonly N[], rank: (n: N) => readonly number[]): N[] {
  return [...numbers].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
    return a.created_at.localeCompare(b.created_at);
  });
}
