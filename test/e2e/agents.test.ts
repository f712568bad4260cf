import { describe, expect, it } from 'vitest';
import { setRepStatusAction } from '../../shared/admin/bootstrap.js';
import { useTestStack } from '../support/stack.js';
import { locs, newRep, profileBody, versionHash } from './agent-fixtures.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

const disclosure = { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' };
const SDR = '/v1/templates/tpl_sdr_outbound/instantiate';

async function setup() {
  const t = await newTenant();
  const api = client(stack, t.token);
  const profile = (await api('POST', '/v1/compliance-profiles', { body: profileBody() })).body;
  return { ...t, api, profile };
}

describe('POST /v1/templates/{id}/instantiate', () => {
  it('creates a draft with every AgentDefinition field, tools from the template, reps as snapshots without numbers', async () => {
    const { api, profile, tenantId } = await setup();
    const rep = await newRep(tenantId, { name: 'Dana' });
    const res = await api('POST', SDR, {
      body: {
        name: 'Solar SDR',
        disclosure_config: disclosure,
        persona: { tone: 'warm', name: 'Sam' },
        conversation_settings: { default_language: 'en-us', supported_languages: ['en-US', 'es-419'], allow_language_switch: true },
        llm_route: { primary: 'gpt-4o', fallbacks: ['claude-sonnet-4-5'] },
        stock_voice_id: 'alloy',
        compliance_profile_id: profile.id,
        dialogue_policy: { 'en-US': { greeting: 'Hi!' }, 'es-419': { greeting: '¡Hola!' } },
        conversation_controls: { max_duration_seconds: 600 },
        direct_rep_ids: [rep.id],
        voicemail_drop: { body: { 'en-US': 'Please call us back.' }, callback_number: '+14155550199' },
      },
    });
    expect(res.status).toBe(200);
    const template = (await api('GET', '/v1/templates/tpl_sdr_outbound')).body;
    expect(res.body).toEqual({
      id: expect.stringMatching(/^agt_/),
      template_id: 'tpl_sdr_outbound',
      template_version: template.version,
      name: 'Solar SDR',
      use_case: 'sdr',
      status: 'draft',
      disclosure_config: disclosure,
      persona: { tone: 'warm', name: 'Sam' },
      conversation_settings: { default_language: 'en-US', supported_languages: ['en-US', 'es-419'], allow_language_switch: true },
      llm_route: { primary: 'gpt-4o', fallbacks: ['claude-sonnet-4-5'] },
      stock_voice_id: 'alloy',
      voice_profile_id: null,
      knowledge_pack_id: null,
      knowledge_pack_version: null,
      compliance_profile_id: profile.id,
      tools: template.tool_grants,
      dialogue_policy: { 'en-US': { greeting: 'Hi!' }, 'es-419': { greeting: '¡Hola!' } },
      conversation_controls: { max_duration_seconds: 600 },
      direct_reps: [{ rep_id: rep.id, name: 'Dana', transfer_enabled: true }],
      voicemail_drop: { body: { 'en-US': 'Please call us back.' }, callback_number: '+14155550199' },
      latest_version: null,
      latest_version_id: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toContain(rep.number!.slice(2));
    expect((await api('GET', `/v1/agents/${res.body.id}`)).body).toEqual(res.body);
    expect(JSON.stringify((await api('GET', '/v1/agents')).body)).not.toContain(rep.number!.slice(2));
  });

  it('needs only disclosure_config; defaults the rest', async () => {
    const { api } = await setup();
    const res = await api('POST', '/v1/templates/tpl_staffing_shift_confirmation/instantiate', { body: { disclosure_config: { business_name: 'ShiftCo' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Staffing: confirm an upcoming shift',
      use_case: 'staffing',
      status: 'draft',
      persona: {},
      conversation_settings: { default_language: 'en-US', supported_languages: ['en-US'], allow_language_switch: false },
      llm_route: null,
      compliance_profile_id: null,
      direct_reps: [],
      voicemail_drop: null,
    });
    expect(res.body.tools).toContain('confirm_shift');
    // A dialogue policy is seeded for the supported language; no voicemail drop without a callback number to give.
    expect(Object.keys(res.body.dialogue_policy)).toEqual(['en-US']);
    expect(res.body.dialogue_policy['en-US']).toMatchObject({ speak: expect.stringMatching(/^English/) });
  });

  it("seeds a dialogue policy and a voicemail body for each supported language, with the disclosure's callback number", async () => {
    const { api } = await setup();
    const res = await api('POST', '/v1/templates/tpl_staffing_shift_confirmation/instantiate', {
      body: {
        disclosure_config: { business_name: 'ShiftCo', callback_number: '+14155550123' },
        conversation_settings: { supported_languages: ['en-US', 'es-MX', 'fr-CA'], allow_language_switch: true },
      },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.dialogue_policy).sort()).toEqual(['en-US', 'es-MX', 'fr-CA']);
    expect(res.body.dialogue_policy['es-MX'].register).toMatch(/usted/);
    expect(res.body.voicemail_drop).toEqual({
      body: { 'en-US': expect.any(String), 'es-MX': expect.stringMatching(/mensaje/), 'fr-CA': expect.stringMatching(/message/) },
      callback_number: '+14155550123',
    });
    // The tenant's own text wins over the seed.
    const own = await api('POST', '/v1/templates/tpl_staffing_shift_confirmation/instantiate', {
      body: { disclosure_config: { business_name: 'ShiftCo', callback_number: '+14155550123' }, dialogue_policy: { 'en-US': { greeting: 'Hi!' } } },
    });
    expect(own.body.dialogue_policy).toEqual({ 'en-US': { greeting: 'Hi!' } });
  });

  it('refuses every broken rule at its loc', async () => {
    const { api } = await setup();
    const missing = await api('POST', SDR, { body: {} });
    expect(locs(missing.body)).toEqual(['body.disclosure_config:missing']);
    const res = await api('POST', SDR, {
      body: {
        disclosure_config: { opener: 'hi' },
        llm_route: { primary: 'gpt-4o', stt: 'whisper', fallbacks: 'x' },
        conversation_settings: { default_language: 'fr-FR', supported_languages: ['en-US', 'en_GB'], tone: 'x' },
        dialogue_policy: { 'not a tag': {} },
        voicemail_drop: { body: { english: 'x', 'en-US': '' }, callback_number: '555-0100' },
        direct_rep_ids: ['rep_nope'],
        compliance_profile_id: 'prof_1',
        unknown_field: true,
      },
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      'body.compliance_profile_id:string_pattern_mismatch',
      'body.conversation_settings.supported_languages.1:language_tag_invalid',
      'body.conversation_settings.tone:extra_forbidden',
      'body.dialogue_policy.not a tag:language_tag_invalid',
      'body.direct_rep_ids.0:string_pattern_mismatch',
      'body.disclosure_config.business_name:missing',
      'body.llm_route.fallbacks:list_type',
      'body.llm_route.stt:extra_forbidden',
      'body.unknown_field:extra_forbidden',
      'body.voicemail_drop.body.en-US:string_too_short',
      'body.voicemail_drop.callback_number:string_pattern_mismatch',
    ]);
    const lang = await api('POST', SDR, {
      body: { disclosure_config: disclosure, conversation_settings: { default_language: 'fr-FR', supported_languages: ['en-US'] } },
    });
    expect(locs(lang.body)).toEqual(['body.conversation_settings.default_language:language_not_supported']);
    const name = await api('POST', SDR, { body: { disclosure_config: { business_name: 'x'.repeat(201) } } });
    expect(locs(name.body)).toEqual(['body.disclosure_config.business_name:string_too_long']);
    const empty = await api('POST', SDR, { body: { disclosure_config: { business_name: '' }, llm_route: { fallbacks: [] } } });
    expect(locs(empty.body)).toEqual(['body.disclosure_config.business_name:string_too_short', 'body.llm_route.primary:missing']);
    const tag = await api('POST', SDR, {
      body: { disclosure_config: disclosure, voicemail_drop: { body: { englishlanguage: 'x' }, callback_number: '+14155550100' } },
    });
    expect(locs(tag.body)).toEqual(['body.voicemail_drop.body.englishlanguage:language_tag_invalid']);
    const dupLang = await api('POST', SDR, { body: { disclosure_config: disclosure, conversation_settings: { supported_languages: ['en-US', 'en-us'] } } });
    expect(locs(dupLang.body)).toEqual(['body.conversation_settings.supported_languages.1:duplicate']);
    const big = Object.fromEntries(['en-US', 'es-US', 'fr-CA', 'de-DE'].map((tag) => [tag, { script: 'x'.repeat(15_000) }]));
    const tooBig = await api('POST', SDR, { body: { disclosure_config: disclosure, dialogue_policy: big } });
    expect(locs(tooBig.body)).toEqual(['body.dialogue_policy:json_too_large']);
    expect((await api('GET', '/v1/agents')).body.data).toEqual([]);
  });

  it("checks references against this tenant: other tenant's profile and reps, disabled reps, unoffered voice profiles, unknown knowledge packs", async () => {
    const { api, tenantId } = await setup();
    const other = await setup();
    const otherRep = await newRep(other.tenantId);
    const disabled = await newRep(tenantId, { disabled: true });
    const ok = await newRep(tenantId);
    const res = await api('POST', SDR, {
      body: {
        disclosure_config: disclosure,
        compliance_profile_id: other.profile.id,
        direct_rep_ids: [ok.id, otherRep.id, disabled.id, 'rep_01JZZZZZZZZZZZZZZZZZZZZZZZ'],
        voice_profile_id: 'vp_1',
        knowledge_pack_id: 'kp_1',
        knowledge_pack_version: 3,
      },
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      'body.compliance_profile_id:not_found',
      'body.direct_rep_ids.1:not_found',
      'body.direct_rep_ids.2:rep_disabled',
      'body.direct_rep_ids.3:not_found',
      'body.knowledge_pack_id:not_found',
      'body.voice_profile_id:not_found',
    ]);
    const dup = await api('POST', SDR, { body: { disclosure_config: disclosure, direct_rep_ids: [ok.id, ok.id] } });
    expect(locs(dup.body)).toEqual(['body.direct_rep_ids.1:duplicate']);
    expect((await api('GET', '/v1/agents')).body.data).toEqual([]);
  });

  it('refuses two keys naming the same language (any case or alias) at the second key, on instantiate and PATCH, and writes nothing', async () => {
    const { api } = await setup();
    const twice = {
      dialogue_policy: { 'en-US': { greeting: 'Hi!' }, 'es-419': { greeting: '¡Hola!' }, 'en-us': { greeting: 'Hello!' } },
      voicemail_drop: { body: { 'EN-us': 'Call us back.', 'en-US': 'Please call back.' }, callback_number: '+14155550199' },
    };
    const res = await api('POST', SDR, { body: { disclosure_config: disclosure, ...twice } });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'dialogue_policy', 'en-us'], 'duplicate_language'],
      [['body', 'voicemail_drop', 'body', 'en-US'], 'duplicate_language'],
    ]);
    expect(res.body.detail[0].ctx).toEqual({ language: 'en-US' });
    const alias = await api('POST', SDR, { body: { disclosure_config: disclosure, dialogue_policy: { he: { a: 1 }, iw: { a: 2 } } } });
    expect(alias.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'dialogue_policy', 'iw'], 'duplicate_language'],
    ]);
    expect((await api('GET', '/v1/agents')).body.data).toEqual([]);

    const agent = (await api('POST', SDR, { body: { disclosure_config: disclosure, dialogue_policy: { 'en-US': { greeting: 'Hi!' } } } })).body;
    for (const [field, loc] of [
      ['dialogue_policy', ['body', 'dialogue_policy', 'en-us']],
      ['voicemail_drop', ['body', 'voicemail_drop', 'body', 'en-US']],
    ] as const) {
      const patch = await api('PATCH', `/v1/agents/${agent.id}`, { body: { [field]: twice[field] } });
      expect(patch.status, field).toBe(422);
      expect(patch.body.detail).toMatchObject([{ loc, type: 'duplicate_language' }]);
    }
    expect((await api('GET', `/v1/agents/${agent.id}`)).body).toEqual(agent);
    // One key per language is stored, in canonical case.
    const distinct = await api('PATCH', `/v1/agents/${agent.id}`, {
      body: { dialogue_policy: { 'en-us': { greeting: 'Hello!' }, 'ES-419': { greeting: '¡Hola!' } } },
    });
    expect(distinct.body.dialogue_policy).toEqual({ 'en-US': { greeting: 'Hello!' }, 'es-419': { greeting: '¡Hola!' } });
  });

  it('404s an unknown template and 409s a deprecated one', async () => {
    const { api } = await setup();
    expect((await api('POST', '/v1/templates/tpl_nope/instantiate', { body: { disclosure_config: disclosure } })).status).toBe(404);
    expect((await api('POST', '/v1/templates/xyz_01JZZZZZZZZZZZZZZZZZZZZZZZ/instantiate', { body: { disclosure_config: disclosure } })).status).toBe(404);
    const dep = await api('POST', '/v1/templates/tpl_sdr_legacy/instantiate', { body: { disclosure_config: disclosure } });
    expect(dep.status).toBe(409);
    expect(dep.body.code).toBe('template_not_published');
  });
});

describe('publishing', () => {
  it('409s without a compliance profile, then publishes version 1 with a recomputable hash, objectives, rubric and frozen profile', async () => {
    const { api, profile } = await setup();
    const agent = (await api('POST', SDR, { body: { disclosure_config: disclosure } })).body;
    const refused = await api('POST', `/v1/agents/${agent.id}/publish`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('compliance_profile_required');
    expect((await api('GET', `/v1/agents/${agent.id}/versions`)).body.data).toEqual([]);

    await api('PATCH', `/v1/agents/${agent.id}`, { body: { compliance_profile_id: profile.id } });
    const res = await api('POST', `/v1/agents/${agent.id}/publish`);
    expect(res.status).toBe(201);
    const v = res.body;
    expect(v).toMatchObject({
      id: expect.stringMatching(/^agv_/),
      agent_id: agent.id,
      version: 1,
      compliance_profile: profile,
      published_at: expect.any(String),
    });
    expect(v.content_hash).toBe(versionHash(v));
    expect(v.definition).toMatchObject({
      id: agent.id,
      status: 'published',
      latest_version: 1,
      latest_version_id: v.id,
      disclosure_config: disclosure,
      compliance_profile_id: profile.id,
    });
    const template = (await api('GET', '/v1/templates/tpl_sdr_outbound')).body;
    expect(v.objectives).toEqual(template.objectives);
    expect(v.rubric.rubric_version).toBe(v.id);
    expect(v.rubric.dimensions.map((d: { name: string }) => d.name)).toEqual([
      'goal_completion',
      'disclosure_given',
      'optout_honored',
      'pack_grounded',
      'latency',
    ]);
    expect(v.rubric.dimensions[0].criteria).toEqual(template.objectives);
    expect(v.rubric.dimensions.filter((d: { floor: boolean }) => d.floor).map((d: { name: string }) => d.name)).toEqual(['disclosure_given', 'optout_honored']);

    const after = (await api('GET', `/v1/agents/${agent.id}`)).body;
    expect(after).toMatchObject({ status: 'published', latest_version: 1, latest_version_id: v.id });
    expect((await api('GET', `/v1/agent-versions/${v.id}`)).body).toEqual(v);
    expect((await api('GET', '/v1/agents?status=published')).body.data.map((a: { id: string }) => a.id)).toEqual([agent.id]);
    const staffing = (await api('POST', '/v1/templates/tpl_staffing_shift_confirmation/instantiate', { body: { disclosure_config: disclosure } })).body;
    expect((await api('GET', '/v1/agents?use_case=staffing')).body.data.map((a: { id: string }) => a.id)).toEqual([staffing.id]);
    expect((await api('GET', '/v1/agents?status=draft,published&limit=1')).body).toMatchObject({ data: [{ id: staffing.id }], has_more: true });
  });

  it('keeps a published version unchanged after the draft and the profile are edited', async () => {
    const { api, profile, tenantId } = await setup();
    const rep = await newRep(tenantId, { name: 'Dana' });
    const agent = (await api('POST', SDR, { body: { disclosure_config: disclosure, compliance_profile_id: profile.id, direct_rep_ids: [rep.id] } })).body;
    const v1 = (await api('POST', `/v1/agents/${agent.id}/publish`)).body;

    const patched = await api('PATCH', `/v1/agents/${agent.id}`, {
      body: {
        name: 'Renamed',
        disclosure_config: { business_name: 'Acme Solar Inc.' },
        persona: { tone: 'brisk' },
        voicemail_drop: { body: { 'en-US': 'Call back' }, callback_number: '+14155550100' },
        direct_rep_ids: [],
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', persona: { tone: 'brisk' }, direct_reps: [], status: 'published', latest_version: 1 });
    const newProfile = await api('PATCH', `/v1/compliance-profiles/${profile.id}`, {
      body: { seller_name: 'Someone Else', calling_window: { start: '10:00', end: '18:00' } },
    });
    expect(newProfile.body.revision).toBe(2);
    await setRepStatusAction({ tenantId, repId: rep.id, status: 'disabled' });

    const reread = (await api('GET', `/v1/agent-versions/${v1.id}`)).body;
    expect(reread).toEqual(v1);
    expect(v1.definition.direct_reps).toEqual([{ rep_id: rep.id, name: 'Dana', transfer_enabled: true }]);
    expect(JSON.stringify(reread)).not.toContain(rep.number!.slice(2));
    expect(reread.compliance_profile.seller_name).toBe('Acme Solar LLC');
    expect(reread.content_hash).toBe(versionHash(reread));

    const v2 = (await api('POST', `/v1/agents/${agent.id}/publish`)).body;
    expect(v2).toMatchObject({ version: 2, definition: { name: 'Renamed' }, compliance_profile: { seller_name: 'Someone Else', revision: 2 } });
    expect(v2.content_hash).toBe(versionHash(v2));
    expect(v2.content_hash).not.toBe(v1.content_hash);
    const versions = (await api('GET', `/v1/agents/${agent.id}/versions`)).body.data;
    expect(versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(versions[1]).toEqual(v1);
  });

  it('10 concurrent publishes of one unchanged draft make version 1 exactly once; the other nine are 409 no_changes', async () => {
    const { api, profile } = await setup();
    const agent = (await api('POST', SDR, { body: { disclosure_config: disclosure, compliance_profile_id: profile.id } })).body;
    const results = await Promise.all(Array.from({ length: 10 }, () => api('POST', `/v1/agents/${agent.id}/publish`)));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'no_changes')).toBe(true);
    const listed = (await api('GET', `/v1/agents/${agent.id}/versions?limit=200`)).body.data;
    expect(listed.map((v: { version: number }) => v.version)).toEqual([1]);
    expect((await api('GET', `/v1/agents/${agent.id}`)).body).toMatchObject({ latest_version: 1, latest_version_id: listed[0].id });
  });

  it('the same content gives the same content_hash; publishing nothing new is 409 no_changes, and returning to earlier content is a new version with its hash', async () => {
    const { api, profile } = await setup();
    const agent = (await api('POST', SDR, { body: { disclosure_config: disclosure, compliance_profile_id: profile.id } })).body;
    const v1 = (await api('POST', `/v1/agents/${agent.id}/publish`)).body;
    const again = await api('POST', `/v1/agents/${agent.id}/publish`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('no_changes');
    await api('PATCH', `/v1/agents/${agent.id}`, { body: { name: 'Renamed' } });
    const v2 = (await api('POST', `/v1/agents/${agent.id}/publish`)).body;
    expect(v2.version).toBe(2);
    expect(v2.content_hash).not.toBe(v1.content_hash);
    await api('PATCH', `/v1/agents/${agent.id}`, { body: { name: agent.name } });
    const v3 = (await api('POST', `/v1/agents/${agent.id}/publish`)).body;
    expect(v3.version).toBe(3);
    expect(v3.content_hash).toBe(v1.content_hash);
  });

  it('replays a publish with the same Idempotency-Key instead of making a second version', async () => {
    const { api, profile } = await setup();
    const agent = (await api('POST', SDR, { body: { disclosure_config: disclosure, compliance_profile_id: profile.id } })).body;
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await api('POST', `/v1/agents/${agent.id}/publish`, { headers });
    const again = await api('POST', `/v1/agents/${agent.id}/publish`, { headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await api('GET', `/v1/agents/${agent.id}`)).body.latest_version).toBe(1);
  });

  it("a well-formed compliance_profile_id or rep_id naming nothing, or another tenant's, is a 422 at its loc on instantiate and PATCH", async () => {
    const { api, tenantId } = await setup();
    const other = await setup();
    const otherRep = await newRep(other.tenantId);
    const mine = await newRep(tenantId, { name: 'Mine' });
    const missingProfile = 'cpr_01JZZZZZZZZZZZZZZZZZZZZZZZ';
    const missingRep = 'rep_01JZZZZZZZZZZZZZZZZZZZZZZZ';
    const made = await api('POST', SDR, { body: { disclosure_config: disclosure, compliance_profile_id: missingProfile } });
    expect(made.status).toBe(422);
    expect(made.body.detail).toMatchObject([{ loc: ['body', 'compliance_profile_id'], type: 'not_found' }]);
    expect((await api('GET', '/v1/agents')).body.data).toEqual([]);

    const agent = (await api('POST', SDR, { body: { disclosure_config: disclosure, direct_rep_ids: [mine.id] } })).body;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ compliance_profile_id: missingProfile }, ['body', 'compliance_profile_id']],
      [{ compliance_profile_id: other.profile.id }, ['body', 'compliance_profile_id']],
      [{ direct_rep_ids: [missingRep] }, ['body', 'direct_rep_ids', 0]],
      [{ direct_rep_ids: [mine.id, otherRep.id] }, ['body', 'direct_rep_ids', 1]],
    ];
    for (const [body, loc] of cases) {
      const res = await api('PATCH', `/v1/agents/${agent.id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail, JSON.stringify(body)).toMatchObject([{ loc, type: 'not_found' }]);
    }
    expect((await api('GET', `/v1/agents/${agent.id}`)).body).toEqual(agent);
    expect(JSON.stringify(agent)).not.toContain(otherRep.number!.slice(2));
  });

  it('PATCH applies the instantiate rules and checks references', async () => {
    const { api, profile } = await setup();
    const other = await setup();
    const agent = (await api('POST', SDR, { body: { disclosure_config: disclosure } })).body;
    const bad = await api('PATCH', `/v1/agents/${agent.id}`, {
      body: {
        llm_route: { primary: 'x', tts: 'y' },
        compliance_profile_id: other.profile.id,
        voice_profile_id: 'vp',
        disclosure_config: {},
        status: 'published',
      },
    });
    expect(locs(bad.body)).toEqual(['body.disclosure_config.business_name:missing', 'body.llm_route.tts:extra_forbidden', 'body.status:extra_forbidden']);
    const refs = await api('PATCH', `/v1/agents/${agent.id}`, { body: { compliance_profile_id: other.profile.id, voice_profile_id: 'vp' } });
    expect(locs(refs.body)).toEqual(['body.compliance_profile_id:not_found', 'body.voice_profile_id:not_found']);
    const good = await api('PATCH', `/v1/agents/${agent.id}`, { body: { compliance_profile_id: profile.id, llm_route: null, voice_profile_id: null } });
    expect(good.body).toMatchObject({ compliance_profile_id: profile.id, llm_route: null, status: 'draft', disclosure_config: disclosure });
  });

  it('refuses model ids the registry does not know, at each id, on instantiate and PATCH', async () => {
    const { api, profile } = await setup();
    const created = await api('POST', SDR, {
      body: {
        disclosure_config: disclosure,
        llm_route: { primary: 'gpt-9-imaginary', fallbacks: ['gpt-4o-mini', 'claude-3-5-sonnet', 'sandbox-default'] },
        voice_profile_id: 'vp',
      },
    });
    expect(created.status).toBe(422);
    expect(locs(created.body)).toEqual(['body.llm_route.fallbacks.1:unknown_model', 'body.llm_route.primary:unknown_model', 'body.voice_profile_id:not_found']);
    expect(created.body.detail.find((d: { type: string }) => d.type === 'unknown_model')).toMatchObject({
      loc: ['body', 'llm_route', 'primary'],
      input: 'gpt-9-imaginary',
    });

    const agent = (
      await api('POST', SDR, {
        body: {
          disclosure_config: disclosure,
          llm_route: { primary: 'claude-sonnet-4-5', fallbacks: ['bedrock:anthropic.claude-3-5-haiku-20241022-v1:0', 'sandbox-default'] },
        },
      })
    ).body;
    expect(agent.llm_route).toEqual({ primary: 'claude-sonnet-4-5', fallbacks: ['bedrock:anthropic.claude-3-5-haiku-20241022-v1:0', 'sandbox-default'] });
    const bad = await api('PATCH', `/v1/agents/${agent.id}`, {
      body: { llm_route: { primary: 'sandbox-slow', fallbacks: ['sandbox-failing', 'Sandbox-Default'] } },
    });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual(['body.llm_route.fallbacks.1:unknown_model']);
    expect((await api('GET', `/v1/agents/${agent.id}`)).body.llm_route).toEqual(agent.llm_route);
    const good = await api('PATCH', `/v1/agents/${agent.id}`, {
      body: { llm_route: { primary: 'sandbox-slow', fallbacks: ['sandbox-default'] }, compliance_profile_id: profile.id },
    });
    expect(good.status).toBe(200);
    expect(good.body.llm_route).toEqual({ primary: 'sandbox-slow', fallbacks: ['sandbox-default'] });
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another tenant's agent and version on every by-id route, and for malformed ids", async () => {
    const owner = await setup();
    const agent = (await owner.api('POST', SDR, { body: { disclosure_config: disclosure, compliance_profile_id: owner.profile.id } })).body;
    const version = (await owner.api('POST', `/v1/agents/${agent.id}/publish`)).body;
    const intruder = (await setup()).api;
    for (const id of [agent.id, 'agt_01JZZZZZZZZZZZZZZZZZZZZZZZ', 'agt_%23x']) {
      expect((await intruder('GET', `/v1/agents/${id}`)).status).toBe(404);
      expect((await intruder('PATCH', `/v1/agents/${id}`, { body: { name: 'mine' } })).status).toBe(404);
      expect((await intruder('POST', `/v1/agents/${id}/publish`)).status).toBe(404);
      expect((await intruder('GET', `/v1/agents/${id}/versions`)).status).toBe(404);
    }
    for (const id of [version.id, 'agv_01JZZZZZZZZZZZZZZZZZZZZZZZ', 'agv_%23x']) expect((await intruder('GET', `/v1/agent-versions/${id}`)).status).toBe(404);
    expect((await intruder('GET', '/v1/agents')).body.data).toEqual([]);
    expect((await owner.api('GET', `/v1/agents/${agent.id}`)).body.name).toBe(agent.name);
    expect((await owner.api('GET', `/v1/agents/${agent.id}`)).body.latest_version).toBe(1);
  });
});
