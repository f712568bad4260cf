/**
 * Account deletion rules (see docs/decisions/account-deletion.md), pure: the grace period, the phrase a person types, the
 * one-use emailed proof's lifetime, how a mailbox is shown masked, and which request states
 * allow what. Time-dependent rules take the instant as an argument.
 */
export const GRACE_PERIOD_DAYS = 14;
const GRACE_PERIOD_MS = GRACE_PERIOD_DAYS * 86_400_000;
/** An emailed deletion proof works for 30 minutes, once, and only while it is the newest one. */
export const DELETION_PROOF_TTL_MS = 30 * 60_000;
export const DELETION_PROOF_PREFIX = 'vad';
/** An emailed sign-in link works for 15 minutes, once, and only while it is the user's newest. */
export const SIGNIN_LINK_TTL_MS = 15 * 60_000;
export const SIGNIN_LINK_PREFIX = 'val';

export const REQUEST_STATUSES = ['none', 'pending', 'cancelled', 'deleting', 'completed'] as const;
export type DeletionRequestStatus = (typeof REQUEST_STATUSES)[number];

export const scheduledFor = (at: Date): Date => new Date(at.getTime() + GRACE_PERIOD_MS);

/** The exact phrase the request must carry: `delete <tenant name>` (case and spaces as shown). */
export const confirmationPhrase = (tenantName: string): string => `delete ${tenantName}`;
export const phraseMatches = (given: string, tenantName: string): boolean => given === confirmationPhrase(tenantName);

/** `owner@acme.test` → `o***@acme.test`: enough to recognise one's own mailbox, not to learn another's. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/** What a (re)confirmation does to the current request: create a new one, or keep the pending one's schedule. */
export function confirmationEffect(status: DeletionRequestStatus): 'create' | 'reconfirm' | 'refuse' {
  if (status === 'none' || status === 'cancelled') return 'create';
  if (status === 'pending') return 'reconfirm';
  return 'refuse';
}

/** Campaign states that still dial or will: deletion cancels them; the overview counts them as active. */
export const ACTIVE_CAMPAIGN_STATUSES = ['scrubbing', 'ready', 'running', 'paused'] as const;
/** Number states the carrier still bills: deletion releases them. */
export const RELEASABLE_NUMBER_STATUSES = ['provisioning', 'active', 'quarantined', 'resting', 'releasing'] as const;
