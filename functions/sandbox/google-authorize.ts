import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { sandboxAuthorize } from '../../shared/sandbox/google.js';

const q = z.string().max(2048).optional();
/**
 * GET /sandbox/google/o/oauth2/v2/auth — the sandbox's Google consent: no screen, consent is
 * given at once. A good request redirects (302) to redirect_uri with `code` and `state`; an
 * unknown client or missing redirect is a 400 (nothing to redirect to), other faults redirect
 * with `error`, as Google does.
 */
export const handler = defineRoute(
  'sandboxGoogleAuthorize',
  handlerChecked,
  {
    query: z.object({
      client_id: q,
      redirect_uri: q,
      response_type: q,
      scope: q,
      state: q,
      code_challenge: q,
      code_challenge_method: q,
      access_type: q,
      prompt: q,
    }),
    responses: { 302: z.object({ location: z.string() }), 400: z.object({ error: z.string(), error_description: z.string() }) },
  },
  async ({ query }) => {
    const result = await sandboxAuthorize(query);
    if ('error' in result && (result.error === 'invalid_client' || !query.redirect_uri || !/^https?:\/\//.test(query.redirect_uri)))
      return { status: 400, body: { error: result.error, error_description: result.description } };
    const to = new URL(query.redirect_uri!);
    if ('code' in result) to.searchParams.set('code', result.code);
    else to.searchParams.set('error', result.error);
    if (query.state !== undefined) to.searchParams.set('state', query.state);
    if ('code' in result) to.searchParams.set('scope', query.scope ?? '');
    return { status: 302, body: { location: to.href }, headers: { location: to.href } };
  },
);
