import { draftFields } from '../../shared/agents/draft.js';
import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getAgentRecord, presentAgent, updateAgent } from '../../shared/repositories/agents.js';
import { agentDefinition, agentPath, agentUpdateRequest } from '../../shared/schemas/agents.js';

/**
 * PATCH /v1/agents/{agent_id} — edits the draft with the instantiate rules (each given
 * field replaces the stored one; null clears an optional one). Published versions never
 * change: publish again to make the edit callable.
 */
export const handler = defineRoute(
  'updateAgent',
  bearer,
  { path: agentPath, body: agentUpdateRequest, responses: { 200: agentDefinition } },
  async ({ principal, path, body }) => {
    if (!(await getAgentRecord(principal.tenantId, path.agent_id))) throw notFound('Agent');
    const updated = await updateAgent(principal.tenantId, path.agent_id, await draftFields(principal.tenantId, body ?? {}), now());
    if (!updated) throw notFound('Agent');
    return ok(presentAgent(updated));
  },
);
