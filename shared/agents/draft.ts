/**
 * From an instantiate or PATCH request to the stored draft fields: defaults, and the
 * references that need a read (compliance profile, reps) checked against this tenant.
 * Every broken reference is reported in one 422, each at its own loc.
 */
import { ValidationError, type ValidationIssue } from '../errors.js';
import { getProfile } from '../repositories/compliance-profiles.js';
import { getPack, getPackVersion } from '../repositories/knowledge-packs.js';
import { getRep, repSnapshot } from '../repositories/reps.js';
import { type AgentDefinition, type AgentUpdateInput, DEFAULT_LANGUAGE } from '../schemas/agents.js';
import { isKnownModel } from '../voice/llm/registry.js';

type Settings = NonNullable<AgentUpdateInput['conversation_settings']>;

/** A missing default_language is the first supported one; missing supported_languages are [default]. */
export function normalizeSettings(s: Settings = {}): AgentDefinition['conversation_settings'] {
  const defaultLanguage = s.default_language ?? s.supported_languages?.[0] ?? DEFAULT_LANGUAGE;
  return {
    default_language: defaultLanguage,
    supported_languages: s.supported_languages ?? [defaultLanguage],
    allow_language_switch: s.allow_language_switch ?? false,
  };
}

const notFoundIssue = (field: string, msg: string, input: unknown): ValidationIssue => ({ loc: ['body', field], msg, type: 'not_found', input });

const UNKNOWN_MODEL = "Unknown model id: name a model this deployment offers (e.g. 'gpt-4o-mini', 'claude-sonnet-4-5', 'sandbox-default')";

/** Every model id of the route that the model registry does not know, each at its own loc. */
function unknownModelIssues(route: AgentUpdateInput['llm_route']): ValidationIssue[] {
  if (!route) return [];
  const issues: ValidationIssue[] = [];
  if (!isKnownModel(route.primary)) issues.push({ loc: ['body', 'llm_route', 'primary'], msg: UNKNOWN_MODEL, type: 'unknown_model', input: route.primary });
  (route.fallbacks ?? []).forEach((id, i) => {
    if (!isKnownModel(id)) issues.push({ loc: ['body', 'llm_route', 'fallbacks', i], msg: UNKNOWN_MODEL, type: 'unknown_model', input: id });
  });
  return issues;
}

/**
 * A pack is named by id and published version together (the contract: referenced by id and integer
 * version), and cleared together (both null). Unknown or another tenant's pack → not_found at
 * knowledge_pack_id; a version never published → not_found at knowledge_pack_version.
 */
async function knowledgePackIssues(tenantId: string, input: AgentUpdateInput): Promise<ValidationIssue[]> {
  const { knowledge_pack_id: id, knowledge_pack_version: version } = input;
  if (id === undefined && version === undefined) return [];
  if (id == null || version == null) {
    if (id === null && version === null) return [];
    // The field left out, else (both sent, one null) the one cleared alone.
    const at =
      id === undefined ? 'knowledge_pack_id' : version === undefined ? 'knowledge_pack_version' : id === null ? 'knowledge_pack_id' : 'knowledge_pack_version';
    return [
      { loc: ['body', at], msg: 'Name knowledge_pack_id and knowledge_pack_version together, or clear both (null)', type: 'missing', input: input[at] ?? null },
    ];
  }
  const [pack, published] = await Promise.all([getPack(tenantId, id), getPackVersion(tenantId, id, version)]);
  if (!pack) return [notFoundIssue('knowledge_pack_id', 'knowledge_pack_id must name a knowledge pack of this tenant', id)];
  if (!published) return [notFoundIssue('knowledge_pack_version', `Knowledge pack ${id} has no published version ${version}: publish it first`, version)];
  return [];
}

/** Checks references and returns the draft fields the request sets (undefined = untouched). */
export async function draftFields(tenantId: string, input: AgentUpdateInput): Promise<Partial<AgentDefinition>> {
  const issues: ValidationIssue[] = unknownModelIssues(input.llm_route);
  // Resources this deployment does not offer yet: nothing can name one.
  if (input.voice_profile_id != null)
    issues.push(notFoundIssue('voice_profile_id', 'No such voice profile: this deployment offers no voice profiles yet', input.voice_profile_id));

  const [profile, reps, packProblems] = await Promise.all([
    input.compliance_profile_id ? getProfile(tenantId, input.compliance_profile_id) : undefined,
    Promise.all((input.direct_rep_ids ?? []).map((id) => getRep(tenantId, id))),
    knowledgePackIssues(tenantId, input),
  ]);
  issues.push(...packProblems);
  if (input.compliance_profile_id && !profile)
    issues.push(notFoundIssue('compliance_profile_id', 'compliance_profile_id must name a compliance profile of this tenant', input.compliance_profile_id));
  reps.forEach((rep, i) => {
    const id = input.direct_rep_ids![i];
    if (!rep) issues.push({ loc: ['body', 'direct_rep_ids', i], msg: 'No rep with this id in this tenant', type: 'not_found', input: id });
    else if (rep.status !== 'active')
      issues.push({ loc: ['body', 'direct_rep_ids', i], msg: 'This rep is disabled: calls cannot transfer to it', type: 'rep_disabled', input: id });
  });
  if (issues.length) throw new ValidationError(issues);

  return {
    name: input.name,
    disclosure_config: input.disclosure_config,
    persona: input.persona,
    conversation_settings: input.conversation_settings && normalizeSettings(input.conversation_settings),
    llm_route: input.llm_route === undefined ? undefined : input.llm_route && { primary: input.llm_route.primary, fallbacks: input.llm_route.fallbacks ?? [] },
    stock_voice_id: input.stock_voice_id,
    voice_profile_id: input.voice_profile_id,
    knowledge_pack_id: input.knowledge_pack_id,
    knowledge_pack_version: input.knowledge_pack_version,
    compliance_profile_id: input.compliance_profile_id,
    dialogue_policy: input.dialogue_policy,
    conversation_controls: input.conversation_controls,
    direct_reps: input.direct_rep_ids && reps.map((r) => repSnapshot(r!)),
    voicemail_drop: input.voicemail_drop,
  };
}
