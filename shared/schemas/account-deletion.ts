/** Dashboard sessions and account deletion payloads (see docs/decisions/account-deletion.md; the contract "Account deletion"). */
import * as z from 'zod';
import { REQUEST_STATUSES } from '../policy/accounts/deletion-rules.js';
import { errorWith, timestamp } from './common.js';
import { singleLineText } from './text.js';

const email = singleLineText({ min: 3, max: 254, trim: true }).regex(/^[^@\s]+@[^@\s]+$/, 'an email address');

export const signInRequest = z.strictObject({ email, password: z.string().min(1).max(1024) }).meta({ id: 'SessionCreateRequest' });
export const emailLinkRequest = z.strictObject({ email }).meta({ id: 'EmailSignInLinkRequest' });
export const emailLinkAccepted = z
  .strictObject({ object: z.literal('email_link_request'), status: z.literal('accepted'), detail: z.string() })
  .meta({ id: 'EmailSignInLinkAccepted' });

/** ActionTokenRequest (the contract): the one-use token from the emailed link. */
export const actionTokenRequest = z.strictObject({ token: singleLineText({ min: 1, max: 300 }) }).meta({ id: 'ActionTokenRequest' });

/** DeleteAccountRequest (the contract): the password re-entered now and the exact phrase `delete <tenant name>`. */
export const deleteAccountRequest = z
  .strictObject({ password: z.string().min(1).max(1024), confirmation_phrase: singleLineText({ min: 1, max: 300 }) })
  .meta({ id: 'DeleteAccountRequest' });
export const cancelDeletionRequest = z.strictObject({ password: z.string().min(1).max(1024).optional() }).meta({ id: 'CancelAccountDeletionRequest' });

const count = z.int().nonnegative();
export const accountDeletionOverview = z
  .strictObject({
    object: z.literal('account_deletion'),
    tenant: z.strictObject({ id: z.string(), name: z.string() }),
    impact: z.strictObject({ contacts: count, calls: count, phone_numbers_to_release: count, active_campaigns: count, open_invoices: count }),
    request: z.strictObject({
      status: z.enum(REQUEST_STATUSES),
      requested_at: timestamp.nullable(),
      scheduled_for: timestamp.nullable(),
      confirmed_by: z.enum(['password', 'email']).nullable(),
      cancelled_at: timestamp.nullable(),
      completed_at: timestamp.nullable(),
    }),
    grace_period_days: z.int(),
    confirmation_phrase: z.string(),
  })
  .meta({ id: 'AccountDeletionOverview' });
export type AccountDeletionOverview = z.infer<typeof accountDeletionOverview>;

export const emailConfirmationAccepted = z.strictObject({ sent_to: z.string(), expires_at: timestamp }).meta({ id: 'EmailConfirmationAccepted' });

export const deletionConflict = errorWith('AccountDeletionConflict', { status: z.enum(REQUEST_STATUSES) });
export const noContent = z.null().meta({ description: 'No body' });
