/**
 * Which of the tenant's numbers places a call or sends a text (pure). What both share: which
 * numbers may be used at all, the area code a preference compares, and "best rank first, then
 * the oldest"; texts rank with these in shared/messages/sender-number.ts.
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

/** A number as the call's choice reads it: its dial cap and today's dials beside what ranking reads. */
export interface CandidateNumber extends RankedNumber {
  id: string;
  daily_dial_cap: number | null;
  dials_day: string | null;
  dials_count: number;
}

export type CallerChoice<N> = { outcome: 'chosen'; number: N } | { outcome: 'none_usable'; frees_at: string | null } | { outcome: 'none_at_all' };

const dialsOn = (n: CandidateNumber, day: string) => (n.dials_day === day ? n.dials_count : 0);

/**
 * The number that places a call (the dispatcher and preflight share it).
 * Usable: active, has voice, its account verified or mock_verified, reputation clean or
 * at_risk, under its daily dial cap today (UTC day). Among usable numbers: the callee's area
 * code first, then clean before at_risk, then the fewest dials today, then the oldest.
 * No usable number: `none_usable` when the tenant has voice numbers that may free up (caps
 * reset at 00:00 UTC), `none_at_all` when it has none that ever could.
 */
export function chooseCallerNumber<N extends CandidateNumber>(
  numbers: readonly N[],
  verifiedAccounts: ReadonlySet<string>,
  calleeE164: string,
  at: Date,
): CallerChoice<N> {
  const day = at.toISOString().slice(0, 10);
  const eligible = numbers.filter((n) => mayUse(n, 'voice', verifiedAccounts));
  if (eligible.length === 0) return { outcome: 'none_at_all' };
  const usable = eligible.filter((n) => n.daily_dial_cap === null || dialsOn(n, day) < n.daily_dial_cap);
  if (usable.length === 0) {
    const midnight = new Date(`${day}T00:00:00.000Z`);
    midnight.setUTCDate(midnight.getUTCDate() + 1);
    return { outcome: 'none_usable', frees_at: midnight.toISOString() };
  }
  const callee = areaCodeOf(calleeE164);
  const [best] = bestFirst(usable, (n) => [
    areaCodeOf(n.phone_e164) === callee && callee !== null ? 0 : 1,
    n.reputation_state === 'clean' ? 0 : 1,
    dialsOn(n, day),
  ]);
  return { outcome: 'chosen', number: best! };
}
