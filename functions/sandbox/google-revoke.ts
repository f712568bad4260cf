import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { sandboxRevoke } from '../../shared/sandbox/google.js';

const f = z.string().max(4096).optional();
/** POST /sandbox/google/revoke — revokes a token (a refresh token takes its grant's access tokens with it); unknown → 400 invalid_token. */
export const handler = defineRoute(
  'sandboxGoogleRevoke',
  handlerChecked,
  {
    body: z.object({ token: f, client_id: f, client_secret: f }),
    responses: { 200: z.object({}), 400: z.object({ error: z.string(), error_description: z.string() }) },
  },
  async ({ body }) =>
    (await sandboxRevoke(body?.token)) ? { status: 200, body: {} } : { status: 400, body: { error: 'invalid_token', error_description: 'Token is not valid' } },
);
