import * as z from 'zod';
import { exchangeCode, revokeTokensAtGoogle } from '../../shared/calendar/google.js';
import { now } from '../../shared/clock.js';
import { DomainError } from '../../shared/errors.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { createConnection, takePendingAuthorization } from '../../shared/repositories/integration-connections.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { integrationConnection, oauthCallbackQuery } from '../../shared/schemas/integrations.js';

/**
 * GET /oauth/google/callback — where Google sends the user back. The `state` must name a
 * pending authorization of this deployment (one use, 10 minutes); oauth4webapi checks the
 * response against it, the code is exchanged with the PKCE verifier, and the tokens are
 * sealed before they are stored. Answers the new connection (never a token). A refused
 * consent, an unknown, reused or expired state → 400, nothing stored. Google unreachable at
 * its token endpoint → 502 oauth_provider_unreachable; a connection that cannot be stored
 * (another calendar connected meanwhile → 409) has its new tokens revoked at Google first.
 */
export const handler = defineRoute(
  'completeGoogleOAuth',
  handlerChecked,
  {
    query: oauthCallbackQuery,
    responses: { 201: integrationConnection, 400: errorSchema, 409: errorSchema.extend({ connection_id: z.string().nullable().optional() }), 502: errorSchema },
  },
  async ({ query, event }) => {
    const at = now();
    const pending = await takePendingAuthorization(query.state, at);
    if (!pending)
      throw new DomainError(
        'bad_request',
        'oauth_state_invalid',
        'Unknown, used or expired authorization state: start again from /v1/integration-connections/oauth/start',
      );
    if (query.error) throw new DomainError('bad_request', 'oauth_access_denied', `Google did not grant access (${query.error})`);
    const exchanged = await exchangeCode(new URLSearchParams(event.rawQueryString ?? ''), query.state, pending.code_verifier);
    try {
      return created(
        await createConnection(
          pending.tenant_id,
          {
            id: pending.connection_id,
            provider: 'google_calendar',
            scopes: exchanged.scopes,
            timezone: pending.timezone,
            working_hours: pending.working_hours,
            tokens: exchanged.tokens,
            access_expires_at: exchanged.accessExpiresAt,
          },
          at,
        ),
      );
    } catch (err) {
      // Not stored (another calendar connected meanwhile, or a failure): the grant Google just
      // gave must not outlive it there.
      await revokeTokensAtGoogle(exchanged.tokens);
      throw err;
    }
  },
);
