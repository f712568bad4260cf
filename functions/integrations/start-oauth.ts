import * as z from 'zod';
import { startAuthorization } from '../../shared/calendar/google.js';
import { now } from '../../shared/clock.js';
import { conflict } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { newId } from '../../shared/ids.js';
import { activeCalendarId, OAUTH_STATE_TTL_MS, savePendingAuthorization } from '../../shared/repositories/integration-connections.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { oauthStartRequest, oauthStartResponse } from '../../shared/schemas/integrations.js';

/**
 * POST /v1/integration-connections/oauth/start {provider: google_calendar} — mints a state
 * and a PKCE verifier (S256), keeps them (the verifier sealed) for 10 minutes, and answers
 * the URL the user opens to consent. Google redirects back to /oauth/google/callback.
 * While a calendar is connected → 409 calendar_already_connected (naming it) before any
 * consent: a grant given at Google that could not become a connection would be left live.
 */
export const handler = defineRoute(
  'startIntegrationOAuth',
  bearer,
  { body: oauthStartRequest, responses: { 200: oauthStartResponse, 409: errorSchema.extend({ connection_id: z.string().nullable().optional() }) } },
  async ({ principal, body }) => {
    const current = await activeCalendarId(principal.tenantId);
    if (current)
      throw conflict('calendar_already_connected', 'A calendar is already connected; disconnect it (DELETE) before connecting another', {
        connection_id: current,
      });
    const start = await startAuthorization();
    const expiresAt = new Date(now().getTime() + OAUTH_STATE_TTL_MS).toISOString();
    await savePendingAuthorization(start.state, {
      tenant_id: principal.tenantId,
      connection_id: newId('icn'),
      provider: body.provider,
      code_verifier: start.codeVerifier,
      timezone: body.timezone,
      working_hours: body.working_hours,
      expires_at: expiresAt,
    });
    return ok({ authorize_url: start.authorizeUrl, state_expires_at: expiresAt });
  },
);
