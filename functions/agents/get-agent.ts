import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getAgentRecord, presentAgent } from '../../shared/repositories/agents.js';
import { agentDefinition, agentPath } from '../../shared/schemas/agents.js';

/** GET /v1/agents/{agent_id} — the draft definition; another tenant's id is a 404. */
export const handler = defineRoute('getAgent', bearer, { path: agentPath, responses: { 200: agentDefinition } }, async ({ principal, path }) => {
  const agent = await getAgentRecord(principal.tenantId, path.agent_id);
  if (!agent) throw notFound('Agent');
  return ok(presentAgent(agent));
});
