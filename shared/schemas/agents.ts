/**
 * Agent schemas: the instantiate request (the contract), the draft PATCH, the
 * AgentDefinition and the immutable AgentVersion (the contract).
 */
import * as z from 'zod';
import { idPattern } from '../ids.js';
import { canonicalLanguageTag } from '../policy/language-tags.js';
import { objective, rubric } from '../policy/rubric.js';
import { toolGrant, useCase } from './agent-templates.js';
import { storableObject, timestamp } from './common.js';
import { complianceProfileResource } from './compliance-profiles.js';
import { contactPhoneNamed } from './phone.js';
import { CONTROL_CHARACTER_TYPE, controlCharacterMessage, forbiddenCharacter, multiLineText, singleLineText } from './text.js';

export const AGENT_STATUSES = ['draft', 'published'] as const;
export const DEFAULT_LANGUAGE = 'en-US';
const MAX_LANGUAGES = 20;
const MAX_DIRECT_REPS = 10;

const tagIssue = (ctx: z.RefinementCtx, path: (string | number)[], input: unknown) =>
  ctx.addIssue({
    code: 'custom',
    message: 'Not a well-formed BCP 47 language tag (e.g. en-US, es-419)',
    path,
    input,
    params: { type: 'language_tag_invalid' },
  });

/** A BCP 47 language tag, checked by Intl and returned in canonical case (en-us → en-US). */
const languageTag = z
  .string()
  .min(2)
  .max(35)
  .transform((v, ctx) => {
    const tag = canonicalLanguageTag(v);
    if (!tag) {
      tagIssue(ctx, [], v);
      return z.NEVER;
    }
    return tag;
  });

/**
 * An object keyed by BCP 47 language tag (keys canonicalised), at most `maxBytes` as JSON
 * in all, so an agent and its frozen versions always fit one DynamoDB item. Two keys that
 * name the same tag (`en-US` and `en-us`, or an alias and its canonical form) are refused at
 * the second key (`duplicate_language`): keeping one would silently drop the other's value.
 */
const byLanguage = <T extends z.ZodType>(value: T, maxBytes: number) =>
  z
    .record(z.string(), value)
    .refine((r) => Object.keys(r).length <= MAX_LANGUAGES, {
      message: `At most ${MAX_LANGUAGES} languages`,
      params: { type: 'too_long', ctx: { max_length: MAX_LANGUAGES } },
    })
    .refine((r) => Buffer.byteLength(JSON.stringify(r), 'utf8') <= maxBytes, {
      message: `At most ${maxBytes} bytes as JSON across all languages`,
      params: { type: 'json_too_large', ctx: { max_bytes: maxBytes } },
    })
    .transform((r, ctx) => {
      const out: Record<string, z.output<T>> = {};
      const keyOf = new Map<string, string>();
      for (const [key, v] of Object.entries(r)) {
        const tag = canonicalLanguageTag(key);
        if (!tag) tagIssue(ctx, [key], key);
        else if (keyOf.has(tag)) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            input: key,
            message: `Names the same language as the key '${keyOf.get(tag)}' (${tag}); send each language once`,
            params: { type: 'duplicate_language', ctx: { language: tag } },
          });
        } else {
          keyOf.set(tag, key);
          out[tag] = v as z.output<T>;
        }
      }
      return out;
    });

const disclosureConfig = storableObject({ maxBytes: 8 * 1024, maxDepth: 6, what: 'disclosure_config' })
  .superRefine((v, ctx) => {
    const name = v.business_name;
    if (name === undefined)
      ctx.addIssue({ code: 'custom', path: ['business_name'], message: 'Field required: the opener names the calling business', params: { type: 'missing' } });
    else if (typeof name !== 'string')
      ctx.addIssue({ code: 'custom', path: ['business_name'], message: 'Input should be a valid string', params: { type: 'string_type' } });
    else if (name.trim().length < 1)
      ctx.addIssue({
        code: 'custom',
        path: ['business_name'],
        message: 'String should have at least 1 character',
        input: name,
        params: { type: 'string_too_short', ctx: { min_length: 1 } },
      });
    else if (name.length > 200)
      ctx.addIssue({
        code: 'custom',
        path: ['business_name'],
        message: 'String should have at most 200 characters',
        params: { type: 'string_too_long', ctx: { max_length: 200 } },
      });
    else {
      const found = forbiddenCharacter(name);
      if (found)
        ctx.addIssue({
          code: 'custom',
          path: ['business_name'],
          message: controlCharacterMessage(found),
          input: name,
          params: { type: CONTROL_CHARACTER_TYPE },
        });
    }
  })
  .describe('Required. Names the calling business in `business_name` (1–200 characters); other keys are free. Never seeded from the template.');

const conversationSettingsInput = z
  .strictObject({
    default_language: languageTag.optional(),
    supported_languages: z.array(languageTag).min(1).max(MAX_LANGUAGES).optional(),
    allow_language_switch: z.boolean().optional(),
  })
  .superRefine((s, ctx) => {
    s.supported_languages?.forEach((tag, i) => {
      if (s.supported_languages!.indexOf(tag) !== i)
        ctx.addIssue({ code: 'custom', path: ['supported_languages', i], message: 'Duplicate language tag', input: tag, params: { type: 'duplicate' } });
    });
    if (s.default_language && s.supported_languages && !s.supported_languages.includes(s.default_language)) {
      ctx.addIssue({
        code: 'custom',
        path: ['default_language'],
        message: 'default_language must be one of supported_languages',
        input: s.default_language,
        params: { type: 'language_not_supported' },
      });
    }
  });

const llmRoute = z
  .strictObject({
    primary: singleLineText({ min: 1, max: 200 }),
    fallbacks: z
      .array(singleLineText({ min: 1, max: 200 }))
      .max(5)
      .optional(),
  })
  .describe(
    "The LLM chain only (speech chains are platform-defaulted); unknown keys are refused. Each id must name a model of this deployment's registry (422 unknown_model), e.g. gpt-4o-mini, claude-sonnet-4-5, bedrock:anthropic.claude-3-5-haiku-20241022-v1:0, sandbox-default.",
  );

const voicemailDropInput = z.strictObject({
  body: byLanguage(multiLineText({ min: 1, max: 1000 }), 16 * 1024).refine((b) => Object.keys(b).length >= 1, {
    message: 'body must have at least one language',
    params: { type: 'too_short', ctx: { min_length: 1 } },
  }),
  callback_number: contactPhoneNamed('callback_number'),
});

const repIds = z
  .array(z.string().regex(idPattern('rep'), { message: 'A rep id (rep_…)' }))
  .max(MAX_DIRECT_REPS)
  .superRefine((ids, ctx) => {
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i) ctx.addIssue({ code: 'custom', path: [i], message: 'Duplicate rep id', input: id, params: { type: 'duplicate' } });
    });
  })
  .describe('Reps calls may transfer to: active reps of this tenant, resolved into `direct_reps` snapshots.');

const notOffered = (what: string) => `Accepted by the contract, but this deployment offers no ${what} yet: any value is a 422 not_found`;

/** The editable fields, shared by instantiate and PATCH. */
const editable = {
  name: singleLineText({ min: 1, max: 200 }),
  persona: storableObject({ maxBytes: 16 * 1024, maxDepth: 6, what: 'persona' }),
  conversation_settings: conversationSettingsInput,
  llm_route: llmRoute,
  stock_voice_id: singleLineText({ min: 1, max: 100 }),
  voice_profile_id: singleLineText({ min: 1, max: 100 }).describe(notOffered('voice profiles')),
  knowledge_pack_id: singleLineText({ min: 1, max: 100 }).describe('A knowledge pack of this tenant (kp_…); named together with knowledge_pack_version'),
  knowledge_pack_version: z.int().min(1).describe('A published version of that pack: the agent answers from it (pinned when the agent is published)'),
  compliance_profile_id: z.string().regex(idPattern('cpr'), { message: 'A compliance profile id (cpr_…)' }),
  dialogue_policy: byLanguage(storableObject({ maxBytes: 16 * 1024, maxDepth: 6, what: 'dialogue_policy entry' }), 48 * 1024),
  conversation_controls: storableObject({ maxBytes: 8 * 1024, maxDepth: 6, what: 'conversation_controls' }),
  direct_rep_ids: repIds,
  voicemail_drop: voicemailDropInput,
};

export const agentInstantiateRequest = z
  .strictObject({
    name: editable.name.optional(),
    disclosure_config: disclosureConfig,
    persona: editable.persona.optional(),
    conversation_settings: editable.conversation_settings.optional(),
    llm_route: editable.llm_route.optional(),
    stock_voice_id: editable.stock_voice_id.optional(),
    voice_profile_id: editable.voice_profile_id.optional(),
    knowledge_pack_id: editable.knowledge_pack_id.optional(),
    knowledge_pack_version: editable.knowledge_pack_version.optional(),
    compliance_profile_id: editable.compliance_profile_id.optional(),
    dialogue_policy: editable.dialogue_policy.optional(),
    conversation_controls: editable.conversation_controls.optional(),
    direct_rep_ids: editable.direct_rep_ids.optional(),
    voicemail_drop: editable.voicemail_drop.optional(),
  })
  .meta({ id: 'AgentInstantiateRequest' });

/** PATCH: any editable field; `null` clears an optional one. */
export const agentUpdateRequest = z
  .strictObject({
    name: editable.name.optional(),
    disclosure_config: disclosureConfig.optional(),
    persona: editable.persona.optional(),
    conversation_settings: editable.conversation_settings.optional(),
    llm_route: editable.llm_route.nullable().optional(),
    stock_voice_id: editable.stock_voice_id.nullable().optional(),
    voice_profile_id: editable.voice_profile_id.nullable().optional(),
    knowledge_pack_id: editable.knowledge_pack_id.nullable().optional(),
    knowledge_pack_version: editable.knowledge_pack_version.nullable().optional(),
    compliance_profile_id: editable.compliance_profile_id.nullable().optional(),
    dialogue_policy: editable.dialogue_policy.optional(),
    conversation_controls: editable.conversation_controls.optional(),
    direct_rep_ids: editable.direct_rep_ids.optional(),
    voicemail_drop: editable.voicemail_drop.nullable().optional(),
  })
  .meta({ id: 'AgentUpdateRequest' });

export type AgentUpdateInput = z.output<typeof agentUpdateRequest>;

const jsonObject = z.record(z.string(), z.unknown());

const directRep = z
  .object({ rep_id: z.string(), name: z.string(), transfer_enabled: z.boolean() })
  .meta({ id: 'DirectRepSnapshot', description: 'Resolved by the server when written; never carries a phone number' });

export const agentDefinition = z
  .object({
    id: z.string(),
    template_id: z.string(),
    template_version: z.int(),
    name: z.string(),
    use_case: useCase,
    status: z.enum(AGENT_STATUSES),
    disclosure_config: jsonObject,
    persona: jsonObject,
    conversation_settings: z.object({ default_language: z.string(), supported_languages: z.array(z.string()), allow_language_switch: z.boolean() }),
    llm_route: z
      .object({ primary: z.string(), fallbacks: z.array(z.string()) })
      .nullable()
      .describe('null: the platform default chain'),
    stock_voice_id: z.string().nullable(),
    voice_profile_id: z.string().nullable(),
    knowledge_pack_id: z.string().nullable(),
    knowledge_pack_version: z.int().nullable(),
    compliance_profile_id: z.string().nullable(),
    tools: z.array(toolGrant).describe("The template's tool_grants"),
    dialogue_policy: z.record(z.string(), jsonObject).describe('Keyed by BCP 47 language tag'),
    conversation_controls: jsonObject,
    direct_reps: z.array(directRep),
    voicemail_drop: z.object({ body: z.record(z.string(), z.string()), callback_number: z.string() }).nullable(),
    latest_version: z.int().nullable().describe('The latest published version number; null until published'),
    latest_version_id: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'AgentDefinition' });

export type AgentDefinition = z.infer<typeof agentDefinition>;

export const agentVersion = z
  .object({
    id: z.string(),
    agent_id: z.string(),
    version: z.int(),
    content_hash: z
      .string()
      .describe(
        'Lowercase hex SHA-256 of the compact JSON, keys sorted at every level, of the content: {definition: `definition` without status, latest_version, latest_version_id, created_at, updated_at; compliance_profile}. The same content gives the same hash; publishing unchanged content is 409 no_changes',
      ),
    definition: agentDefinition,
    objectives: z.array(objective),
    rubric,
    compliance_profile: complianceProfileResource,
    published_at: timestamp,
  })
  .meta({ id: 'AgentVersion' });

export type AgentVersion = z.infer<typeof agentVersion>;

export const agentPath = z.object({ agent_id: z.string().min(1).max(64) });
