import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { sandboxToken } from '../../shared/sandbox/google.js';

const f = z.string().max(4096).optional();
const oauthError = z.object({ error: z.string(), error_description: z.string() });
/** POST /sandbox/google/token — Google's token endpoint, played: authorization_code (PKCE verifier checked) and refresh_token. */
export const handler = defineRoute(
  'sandboxGoogleToken',
  handlerChecked,
  {
    body: z.object({ grant_type: f, code: f, redirect_uri: f, code_verifier: f, refresh_token: f, client_id: f, client_secret: f }),
    responses: {
      200: z.object({ access_token: z.string(), token_type: z.string(), expires_in: z.int(), scope: z.string(), refresh_token: z.string().optional() }),
      400: oauthError,
      401: oauthError,
    },
  },
  async ({ body, event }) => {
    const answer = await sandboxToken(body ?? {}, event.headers?.authorization);
    return { status: answer.status, body: answer.body };
  },
);
