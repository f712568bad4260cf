import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { listAgents } from '../../shared/repositories/agents.js';
import { USE_CASES } from '../../shared/schemas/agent-templates.js';
import { AGENT_STATUSES, agentDefinition } from '../../shared/schemas/agents.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/** GET /v1/agents — newest first. */
export const handler = defineListRoute(
  'listAgents',
  bearer,
  {
    query: pageQuery,
    filters: { status: { kind: 'enum', values: AGENT_STATUSES }, use_case: { kind: 'enum', values: USE_CASES } },
    responses: { 200: cursorPage(agentDefinition) },
  },
  async ({ principal, query, filters }) => ok(await listAgents(principal.tenantId, { ...query, filters })),
);
