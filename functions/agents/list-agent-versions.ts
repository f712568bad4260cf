import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getAgentRecord, listAgentVersions } from '../../shared/repositories/agents.js';
import { agentPath, agentVersion } from '../../shared/schemas/agents.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/** GET /v1/agents/{agent_id}/versions — the agent's published versions, newest first. */
export const handler = defineRoute(
  'listAgentVersions',
  bearer,
  { path: agentPath, query: pageQuery, responses: { 200: cursorPage(agentVersion) } },
  async ({ principal, path, query }) => {
    if (!(await getAgentRecord(principal.tenantId, path.agent_id))) throw notFound('Agent');
    return ok(await listAgentVersions(principal.tenantId, path.agent_id, query));
  },
);
