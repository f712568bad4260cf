import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { updateConnection } from '../../shared/repositories/integration-connections.js';
import { connectionPath, connectionUpdateRequest, integrationConnection } from '../../shared/schemas/integrations.js';

/** PATCH /v1/integration-connections/{connection_id} — the working hours and their zone (availability reads them). */
export const handler = defineRoute(
  'updateIntegrationConnection',
  bearer,
  { path: connectionPath, body: connectionUpdateRequest, responses: { 200: integrationConnection } },
  async ({ principal, path, body }) => {
    const connection = await updateConnection(principal.tenantId, path.connection_id, body, now());
    if (!connection) throw notFound('Integration connection');
    return ok(connection);
  },
);
