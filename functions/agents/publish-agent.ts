import { now } from '../../shared/clock.js';
import { conflict, notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { newId } from '../../shared/ids.js';
import { getTemplate } from '../../shared/repositories/agent-templates.js';
import { ComplianceProfileRequired, NoChanges, publishAgent } from '../../shared/repositories/agents.js';
import { getProfile } from '../../shared/repositories/compliance-profiles.js';
import { agentPath, agentVersion } from '../../shared/schemas/agents.js';

/**
 * POST /v1/agents/{agent_id}/publish — freezes the draft as the next immutable version
 * (1, 2, 3 … even under concurrent publishes), with the template's objectives, the
 * scoring rubric and a copy of the compliance profile. Optional Idempotency-Key: the
 * stored result commits in the same transaction as the version. A draft whose content is the
 * latest version's (the same content_hash) is 409 `no_changes`: nothing new to publish.
 */
export const handler = defineRoute('publishAgent', bearer, { path: agentPath, responses: { 201: agentVersion } }, async ({ principal, path, idempotency }) => {
  const tenantId = principal.tenantId;
  try {
    const version = await publishAgent(tenantId, path.agent_id, {
      profile: (agent) => getProfile(tenantId, agent.compliance_profile_id!, true),
      objectives: async (agent) => (await getTemplate(agent.template_id, agent.template_version))?.objectives ?? [],
      newVersionId: () => newId('agv'),
      at: now(),
      extra: (v) => (idempotency ? [idempotency.commitItem(created(v))] : []),
    });
    if (!version) throw notFound('Agent');
    return { ...created(version), idempotencyCommitted: Boolean(idempotency) };
  } catch (err) {
    if (err instanceof NoChanges) {
      throw conflict(
        'no_changes',
        `Nothing to publish: the draft and its compliance profile are those of version ${err.latest.version} (${err.latest.id}). Edit the draft first.`,
      );
    }
    if (err instanceof ComplianceProfileRequired) {
      throw conflict('compliance_profile_required', 'Set compliance_profile_id on the agent before publishing: no agent may call anyone without one');
    }
    throw err;
  }
});
