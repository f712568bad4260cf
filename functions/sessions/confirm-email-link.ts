import { now } from '../../shared/clock.js';
import { originOnly } from '../../shared/http/auth/origin.js';
import { defineRoute } from '../../shared/http/route.js';
import { sessionCookie } from '../../shared/policy/auth/session-rules.js';
import { actionTokenRequest, noContent } from '../../shared/schemas/account-deletion.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { confirmEmailLink } from '../../shared/sessions/email-link.js';

/** POST /v1/sessions/email-link/confirm — spend a sign-in link (once; expired, used or replaced → 422 at ["body","token"]) → 204 with the session cookie. */
export const handler = defineRoute(
  'confirmEmailSignInLink',
  originOnly,
  { body: actionTokenRequest, responses: { 204: noContent, 403: errorSchema } },
  async ({ body }) => {
    const session = await confirmEmailLink({ token: body.token, at: now() });
    return { status: 204, body: undefined, headers: { 'set-cookie': sessionCookie(session.cookieValue) } };
  },
);
