/**
 * Which of the tenant's numbers sends a text (pure). A number may send when it is active,
 * has the `sms` capability, belongs to a verified (or mock_verified) account and is not
 * flagged or burned. A US long code (a +1 number in a US area code) also needs its 10DLC
 * campaign (`a2p_campaign_ref`): carriers filter unregistered A2P traffic, so without one
 * the message fails `a2p_registration_missing` rather than being sent to be dropped.
 *
 * Preference: the number the call was placed from or answered on (a text the agent sends
 * during a call comes from the number the contact is talking to), then one in the
 * contact's area code, then a clean one, then the oldest.
 */
import { areaCodeOf, bestFirst, mayUse, type RankedNumber } from '../policy/caller-number.js';
import { isUsJurisdiction, placeOf } from '../policy/compliance/numbering.js';

export interface SenderCandidate extends RankedNumber {
  id: string;
  a2p_campaign_ref: string | null;
}

export type SenderChoice<N extends SenderCandidate> =
  | { outcome: 'chosen'; number: N }
  /** Numbers could send but lack their 10DLC registration: the best of them, for the record. */
  | { outcome: 'a2p_registration_missing'; number: N }
  | { outcome: 'no_sms_number' };

export const isUsLongCode = (e164: string): boolean => {
  const { areaCode, info } = placeOf(e164);
  return /^\+1\d{10}$/.test(e164) && areaCode !== null && isUsJurisdiction(info);
};

export function chooseSender<N extends SenderCandidate>(
  numbers: readonly N[],
  verifiedAccounts: ReadonlySet<string>,
  toE164: string,
  preferredId: string | null = null,
): SenderChoice<N> {
  const able = numbers.filter((n) => mayUse(n, 'sms', verifiedAccounts));
  if (able.length === 0) return { outcome: 'no_sms_number' };
  const to = areaCodeOf(toE164);
  const sorted = bestFirst(able, (n) => [
    n.id === preferredId ? 0 : 1,
    to !== null && areaCodeOf(n.phone_e164) === to ? 0 : 1,
    n.reputation_state === 'clean' ? 0 : 1,
  ]);
  const registered = sorted.filter((n) => !isUsLongCode(n.phone_e164) || n.a2p_campaign_ref !== null);
  return registered.length > 0 ? { outcome: 'chosen', number: registered[0]! } : { outcome: 'a2p_registration_missing', number: sorted[0]! };
}
