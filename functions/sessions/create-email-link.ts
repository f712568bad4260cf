import { now } from '../../shared/clock.js';
import { originOnly } from '../../shared/http/auth/origin.js';
import { accepted } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { emailLinkAccepted, emailLinkRequest } from '../../shared/schemas/account-deletion.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { requestEmailLink } from '../../shared/sessions/email-link.js';
import { dashboardOrigin } from '../../shared/sessions/origin.js';

/**
 * POST /v1/sessions/email-link — email a one-use sign-in link (15 minutes) to a user whose
 * mailbox is verified. 202 with the same body whether or not the email is known.
 */
export const handler = defineRoute(
  'createEmailSignInLink',
  originOnly,
  { body: emailLinkRequest, responses: { 202: emailLinkAccepted, 403: errorSchema, 429: errorSchema } },
  async ({ body, sourceIp }) => {
    await requestEmailLink({ email: body.email, sourceIp: sourceIp ?? 'unknown', at: now(), dashboardOrigin: dashboardOrigin() ?? '' });
    return accepted({ object: 'email_link_request' as const, status: 'accepted' as const, detail: 'If this email can sign in, a link is on its way' });
  },
);
