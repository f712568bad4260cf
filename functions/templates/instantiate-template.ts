import * as z from 'zod';
import { draftFields, normalizeSettings } from '../../shared/agents/draft.js';
import { seededDialoguePolicy, seededVoicemailDrop } from '../../shared/agents/template-seed.js';
import { conflict, notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { newId } from '../../shared/ids.js';
import { getTemplate } from '../../shared/repositories/agent-templates.js';
import { type AgentRecord, createAgent, presentAgent } from '../../shared/repositories/agents.js';
import { agentDefinition, agentInstantiateRequest } from '../../shared/schemas/agents.js';

/**
 * POST /v1/templates/{template_id}/instantiate — a new draft agent from a published
 * template. disclosure_config is the caller's (never seeded from the template); tools
 * are the template's tool_grants; references are checked against this tenant (422).
 */
export const handler = defineRoute(
  'instantiateTemplate',
  bearer,
  { path: z.object({ template_id: z.string().min(1).max(64) }), body: agentInstantiateRequest, responses: { 200: agentDefinition } },
  async ({ principal, path, body }) => {
    const template = await getTemplate(path.template_id);
    if (!template) throw notFound('Template');
    if (template.status !== 'published') throw conflict('template_not_published', `Template ${template.id} is ${template.status} and cannot be instantiated`);
    const fields = await draftFields(principal.tenantId, body);
    const now = new Date().toISOString();
    const settings = fields.conversation_settings ?? normalizeSettings();
    const agent: AgentRecord = {
      id: newId('agt'),
      tenant_id: principal.tenantId,
      template_id: template.id,
      template_version: template.version,
      name: fields.name ?? template.name,
      use_case: template.use_case,
      status: 'draft',
      disclosure_config: body.disclosure_config,
      persona: fields.persona ?? {},
      conversation_settings: settings,
      llm_route: fields.llm_route ?? null,
      stock_voice_id: fields.stock_voice_id ?? null,
      voice_profile_id: null,
      knowledge_pack_id: fields.knowledge_pack_id ?? null,
      knowledge_pack_version: fields.knowledge_pack_version ?? null,
      compliance_profile_id: fields.compliance_profile_id ?? null,
      tools: template.tool_grants,
      // Seeded per supported language so the agent can talk before the tenant writes text.
      dialogue_policy: fields.dialogue_policy ?? seededDialoguePolicy(settings.supported_languages),
      conversation_controls: fields.conversation_controls ?? {},
      direct_reps: fields.direct_reps ?? [],
      voicemail_drop: fields.voicemail_drop ?? seededVoicemailDrop(settings.supported_languages, body.disclosure_config),
      latest_version_id: null,
      version_count: 0,
      created_at: now,
      updated_at: now,
    };
    await createAgent(agent);
    return ok(presentAgent(agent));
  },
);
