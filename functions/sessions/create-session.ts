import { now } from '../../shared/clock.js';
import { originOnly } from '../../shared/http/auth/origin.js';
import { defineRoute } from '../../shared/http/route.js';
import { sessionCookie } from '../../shared/policy/auth/session-rules.js';
import { noContent, signInRequest } from '../../shared/schemas/account-deletion.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { signInWithPassword } from '../../shared/sessions/sign-in.js';

/**
 * POST /v1/sessions — sign in with email and password → 204 and the session cookie.
 * A wrong email and a wrong password are the same 401 in the same time; repeated failures
 * are throttled per account and per source (429 with Retry-After). Origin = the dashboard.
 */
export const handler = defineRoute(
  'createSession',
  originOnly,
  { body: signInRequest, responses: { 204: noContent, 401: errorSchema, 403: errorSchema, 429: errorSchema } },
  async ({ body, sourceIp }) => {
    const session = await signInWithPassword({ email: body.email, password: body.password, sourceIp: sourceIp ?? 'unknown', at: now() });
    return { status: 204, body: undefined, headers: { 'set-cookie': sessionCookie(session.cookieValue) } };
  },
);
