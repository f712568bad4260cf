import { session } from '../../shared/http/auth/session.js';
import { defineRoute } from '../../shared/http/route.js';
import { clearedSessionCookie } from '../../shared/policy/auth/session-rules.js';
import { revokeSession } from '../../shared/repositories/sessions.js';
import { noContent } from '../../shared/schemas/account-deletion.js';
import { errorSchema } from '../../shared/schemas/common.js';

/** DELETE /v1/sessions — sign out: the session record is deleted (the cookie stops working everywhere) and the cookie cleared. */
export const handler = defineRoute('deleteSession', session, { responses: { 204: noContent, 401: errorSchema, 403: errorSchema } }, async ({ session }) => {
  await revokeSession(session.sessionHash);
  return { status: 204, body: undefined, headers: { 'set-cookie': clearedSessionCookie() } };
});
