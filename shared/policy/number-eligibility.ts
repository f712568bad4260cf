/**
 * Whether a number may answer with a live agent or a policy (the contract; the inbound
 * voice route re-checks the same on every call). Pure: the number and its account's status in,
 * the reasons it may not out (empty = eligible).
 */
export const INELIGIBLE_REASONS = ['number_not_active', 'number_without_voice', 'account_not_verified', 'number_burned'] as const;
export type IneligibleReason = (typeof INELIGIBLE_REASONS)[number];

export function numberIneligibility(
  number: { status: string; capabilities: readonly string[]; reputation_state: string },
  accountVerification: string | undefined,
): IneligibleReason[] {
  const reasons: IneligibleReason[] = [];
  if (number.status !== 'active') reasons.push('number_not_active');
  if (!number.capabilities.includes('voice')) reasons.push('number_without_voice');
  if (accountVerification !== 'verified' && accountVerification !== 'mock_verified') reasons.push('account_not_verified');
  if (number.reputation_state === 'burned') reasons.push('number_burned');
  return reasons;
}

export const INELIGIBLE_MESSAGES: Record<IneligibleReason, string> = {
  number_not_active: 'the number is not active',
  number_without_voice: 'the number has no voice capability',
  account_not_verified: "the number's telephony account is not verified",
  number_burned: "the number's reputation is burned",
};
