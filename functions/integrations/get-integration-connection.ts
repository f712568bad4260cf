import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getConnectionRecord, presentConnection } from '../../shared/repositories/integration-connections.js';
import { connectionPath, integrationConnection } from '../../shared/schemas/integrations.js';

/** GET /v1/integration-connections/{connection_id} — another tenant's id is a 404. */
export const handler = defineRoute(
  'getIntegrationConnection',
  bearer,
  { path: connectionPath, responses: { 200: integrationConnection } },
  async ({ principal, path }) => {
    const record = await getConnectionRecord(principal.tenantId, path.connection_id);
    if (!record) throw notFound('Integration connection');
    return ok(presentConnection(record as unknown as Record<string, unknown>));
  },
);
