import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { listConnections } from '../../shared/repositories/integration-connections.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { integrationConnection } from '../../shared/schemas/integrations.js';

/** GET /v1/integration-connections — newest first, active and revoked alike; never token material. */
export const handler = defineRoute(
  'listIntegrationConnections',
  bearer,
  { query: pageQuery, responses: { 200: cursorPage(integrationConnection) } },
  async ({ principal, query }) => ok(await listConnections(principal.tenantId, query)),
);
