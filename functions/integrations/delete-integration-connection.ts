import { revokeAtGoogle } from '../../shared/calendar/google.js';
import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { revokeConnection } from '../../shared/repositories/integration-connections.js';
import { connectionPath, integrationConnection } from '../../shared/schemas/integrations.js';

/**
 * DELETE /v1/integration-connections/{connection_id} — revokes: the connection turns
 * `revoked` (kept for the audit trail), its sealed tokens are dropped and the calendar slot
 * is freed in one transaction; a Google connection's token is then revoked at Google (best
 * effort: our side no longer holds it either way). Revoking again answers the same 200.
 */
export const handler = defineRoute(
  'deleteIntegrationConnection',
  bearer,
  { path: connectionPath, responses: { 200: integrationConnection } },
  async ({ principal, path }) => {
    const result = await revokeConnection(principal.tenantId, path.connection_id, now());
    if (!result) throw notFound('Integration connection');
    if (result.revoked?.provider === 'google_calendar' && result.revoked.sealed_tokens) await revokeAtGoogle(result.revoked);
    return ok(result.connection);
  },
);
