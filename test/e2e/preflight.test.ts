/**
 * POST /v1/calls/preflight on the local stack: the engine's vectors judged from stored
 * records (contacts and consents, the suppression list, National DNC snapshots, attempts,
 * numbers and accounts), the caller-number choice, the 422/409 answers, and proof that
 * nothing is written.
 */
import { ScanCommand, type ScanCommandInput, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../shared/admin/bootstrap.js';
import { db, tableName } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import { newId } from '../../shared/ids.js';
import { parseDncFile } from '../../shared/policy/dnc/snapshot-file.js';
import { attemptPlacedItems, contactAttemptPut } from '../../shared/repositories/contact-attempts.js';
import { replaceDncSnapshot } from '../../shared/repositories/dnc-snapshots.js';
import { useTestStack } from '../support/stack.js';
import { locs, profileBody } from './agent-fixtures.js';
import { client, newTenant } from './client.js';
import { activeNumber, draftAgent, mockAccount, randomNumber } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });
type Api = ReturnType<typeof client>;

/** Wednesday 2026-11-18, 10:00 in New York (EST, UTC−5). */
const AT = '2026-11-18T15:00:00.000Z';
const SUBJECT = 'product_offers'; // profileBody's
const SELLER = 'Acme Solar LLC';
const INFO_SUBJECT = 'appointment_reminders';
/** On the 212 snapshot (area codes 212, 305, 718, 512, 205 loaded on 2026-11-01; 646 on 2026-09-01, stale by AT; 917 never). */
const LISTED_212 = '+12125550199';

const evidence = { artifact_type: 'web_form', artifact_ref: 'https://acme.test/forms/1', content_hash: 'a'.repeat(64) };
const consent = (over: Record<string, unknown> = {}) => ({
  consent_basis: 'pewc',
  captured_at: '2026-10-01T12:00:00Z',
  scope: { purposes: [SUBJECT] },
  evidence,
  ...over,
});

let seq = 0;
const unique = (areaCode: string) => `+1${areaCode}555${String(2000 + (++seq % 7000)).padStart(4, '0')}`;

async function contact(api: Api, over: Record<string, unknown> = {}): Promise<{ id: string; phone_e164: string }> {
  const res = await api('POST', '/v1/contacts', { body: { phone_e164: unique('212'), consent: consent(), ...over } });
  if (res.status !== 200) throw new Error(`contact not created: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function agent(api: Api, profile: Record<string, unknown> = {}): Promise<{ id: string; versionId: string }> {
  const p = (await api('POST', '/v1/compliance-profiles', { body: profileBody(profile) })).body;
  const a = (
    await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
      body: { disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' }, compliance_profile_id: p.id },
    })
  ).body;
  const v = await api('POST', `/v1/agents/${a.id}/publish`);
  if (v.status !== 201) throw new Error(`agent not published: ${JSON.stringify(v.body)}`);
  return { id: a.id, versionId: v.body.id };
}

const preflight = (api: Api, body: Record<string, unknown>) => api('POST', '/v1/calls/preflight', { body });
const codes = (decision: { reasons: { code: string }[] }) => decision.reasons.map((r) => r.code).sort();

interface Main {
  api: Api;
  tenantId: string;
  marketing: { id: string; versionId: string };
  informational: { id: string; versionId: string };
  number415: { id: string; phone_e164: string; telephony_account_id: string };
  number212: { id: string; phone_e164: string; telephony_account_id: string };
}
let m: Main;

const file = (areaCode: string, numbers: string[]) => parseDncFile(numbers.map((n) => n.slice(2)).join('\n'), areaCode);

beforeAll(async () => {
  await replaceDncSnapshot('212', '2026-11-01', file('212', [LISTED_212, '+12125550198']), new Date());
  await replaceDncSnapshot('305', '2026-11-01', file('305', ['+13055550100']), new Date());
  await replaceDncSnapshot('718', '2026-11-01', file('718', ['+17185550100']), new Date());
  await replaceDncSnapshot('646', '2026-09-01', file('646', ['+16465550100']), new Date());
  await replaceDncSnapshot('512', '2026-11-01', file('512', ['+15125550100']), new Date());
  await replaceDncSnapshot('205', '2026-11-01', file('205', ['+12055550100']), new Date());

  const t = await newTenant('Preflight');
  const api = client(stack, t.token);
  const accountId = await mockAccount(api, { ftc_san_refs: [{ san: 'SAN-ACME-1', area_codes: ['212', '305', '646', '917', '512', '205'] }] });
  const number415 = await activeNumber(api, { accountId, phone: randomNumber('415') });
  const number212 = await activeNumber(api, { accountId, phone: randomNumber('212') });
  const marketing = await agent(api); // calling window 09:00–20:00
  const informational = await agent(api, { name: 'Reminders', call_purpose: 'informational', subject: INFO_SUBJECT, calling_window: undefined });
  m = { api, tenantId: t.tenantId, marketing, informational, number415, number212 };
});

describe('POST /v1/calls/preflight: the decision POST /v1/calls would reach', () => {
  it('allows a marketing call with covering pewc, a SAN and a fresh unlisted snapshot, from the callee-area-code number', async () => {
    const c = await contact(m.api);
    const res = await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at: AT });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      outcome: 'allow',
      disposition: null,
      reasons: [],
      next_permitted_at: null,
      callee: { zones: ['America/New_York'], states: ['US-NY'] },
      call_purpose: 'marketing',
      evaluated_at: AT,
      rule_set_version: expect.any(String),
      agent_version_id: m.marketing.versionId,
      caller: { phone_number_id: m.number212.id, from_e164: m.number212.phone_e164, telephony_account_id: m.number212.telephony_account_id },
    });
    // A member key may ask too, and `at` defaults to now (evaluated within this test).
    const member = client(stack, (await createApiKey({ tenantId: m.tenantId, name: 'desk', role: 'member' })).api_key.secret);
    const before = Date.now();
    const now = await preflight(member, {
      agent_id: m.marketing.id,
      contact_id: c.id,
      questions: [{ id: 'q1', prompt: 'How satisfied are you?' }],
      context: { plan: 'gold' },
    });
    expect(now.status).toBe(200);
    expect(Date.parse(now.body.evaluated_at)).toBeGreaterThanOrEqual(before - 1);
  });

  it('the latest published version is the one judged', async () => {
    const c = await contact(m.api);
    const a = await agent(m.api);
    await m.api('PATCH', `/v1/agents/${a.id}`, { body: { name: 'Second version' } });
    const v2 = await m.api('POST', `/v1/agents/${a.id}/publish`);
    expect(v2.status).toBe(201);
    expect((await preflight(m.api, { agent_id: a.id, contact_id: c.id, at: AT })).body.agent_version_id).toBe(v2.body.id);
  });

  it('internal_dnc: a suppression blocks (dnc_hit) at once, and lifting it allows again', async () => {
    const c = await contact(m.api);
    expect((await m.api('POST', '/v1/suppressions', { body: { phone_e164: c.phone_e164, reason: 'opt_out' } })).status).toBe(201);
    const blocked = (await preflight(m.api, { agent_id: m.informational.id, contact_id: c.id, at: AT })).body;
    expect(blocked).toMatchObject({ outcome: 'block', disposition: 'dnc_hit', next_permitted_at: null });
    expect(codes(blocked)).toEqual(['consent_scope_mismatch', 'internal_dnc']); // its consent covers product_offers, not reminders
    expect(codes((await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at: AT })).body)).toEqual(['internal_dnc']);
    await m.api('DELETE', `/v1/suppressions/${encodeURIComponent(c.phone_e164)}`, { body: { note: 'asked to be called' } });
    expect((await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at: AT })).body.outcome).toBe('allow');
  });

  it('national_dnc: a listed number blocks (dnc_hit) unless a valid pewc covers the call', async () => {
    const pec = await contact(m.api, { phone_e164: LISTED_212, consent: consent({ consent_basis: 'pec' }) });
    const blocked = (await preflight(m.api, { agent_id: m.marketing.id, contact_id: pec.id, at: AT })).body;
    expect(blocked).toMatchObject({ outcome: 'block', disposition: 'dnc_hit' });
    expect(codes(blocked)).toEqual(['consent_insufficient', 'national_dnc']);
    expect(blocked.reasons.find((r: { code: string }) => r.code === 'national_dnc')).toMatchObject({ area_code: '212', as_of: '2026-11-01' });

    const other = await newTenant('Listed');
    const api = client(stack, other.token);
    const accountId = await mockAccount(api, { ftc_san_refs: [{ san: 'SAN-2', area_codes: ['212'] }] });
    await activeNumber(api, { accountId, phone: randomNumber('212') });
    const a = await agent(api);
    const pewc = await contact(api, { phone_e164: LISTED_212 });
    expect((await preflight(api, { agent_id: a.id, contact_id: pewc.id, at: AT })).body.outcome).toBe('allow');
  });

  it('scrubbing: no SAN for the area code, no snapshot, a stale snapshot (scrub_blocked)', async () => {
    for (const [areaCode, code] of [
      ['718', 'dnc_no_san'],
      ['917', 'dnc_registry_missing'],
      ['646', 'dnc_registry_stale'],
    ] as const) {
      const c = await contact(m.api, { phone_e164: unique(areaCode) });
      const d = (await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at: AT })).body;
      expect({ areaCode, outcome: d.outcome, disposition: d.disposition, codes: codes(d) }).toEqual({
        areaCode,
        outcome: 'block',
        disposition: 'scrub_blocked',
        codes: [code],
      });
      // Informational calls are not scrubbed against the registry.
      const info = await contact(m.api, { phone_e164: unique(areaCode), consent: consent({ scope: { purposes: [INFO_SUBJECT] } }) });
      expect((await preflight(m.api, { agent_id: m.informational.id, contact_id: info.id, at: AT })).body.outcome).toBe('allow');
    }
  });

  it('consent: missing (expired one second before at), insufficient (ebr), scope mismatch (purpose, channel, seller)', async () => {
    const judge = async (c: Record<string, unknown>) =>
      (await preflight(m.api, { agent_id: m.marketing.id, contact_id: (await contact(m.api, { consent: consent(c) })).id, at: AT })).body;
    const expired = await judge({ expires_at: '2026-11-18T14:59:59Z' });
    expect(expired).toMatchObject({ outcome: 'block', disposition: 'blocked_by_policy' });
    expect(codes(expired)).toEqual(['consent_missing']);
    expect((await judge({ expires_at: '2026-11-18T15:00:01Z' })).outcome).toBe('allow');
    expect(codes(await judge({ consent_basis: 'ebr' }))).toEqual(['consent_insufficient']);
    expect(codes(await judge({ scope: { purposes: ['something_else'] } }))).toEqual(['consent_scope_mismatch']);
    expect(codes(await judge({ scope: { purposes: [SUBJECT], channels: ['sms'] } }))).toEqual(['consent_scope_mismatch']);
    expect((await judge({ scope: { purposes: [SUBJECT], channels: ['voice'] } })).outcome).toBe('allow');
    expect(codes(await judge({ scope: { purposes: [SUBJECT], seller: 'Other Co' } }))).toEqual(['consent_scope_mismatch']);
    expect((await judge({ scope: { purposes: [SUBJECT], seller: SELLER.toUpperCase() } })).outcome).toBe('allow');
  });

  it('quiet hours at 07:59, 08:00, 20:59 and 21:00 in New York, judged at `at`', async () => {
    const c = await contact(m.api, { consent: consent({ scope: { purposes: [INFO_SUBJECT] } }) });
    const at = async (instant: string) => (await preflight(m.api, { agent_id: m.informational.id, contact_id: c.id, at: instant })).body;
    const early = await at('2026-11-18T12:59:00Z');
    expect(early).toMatchObject({ outcome: 'defer', disposition: null, next_permitted_at: '2026-11-18T13:00:00.000Z' });
    expect(early.reasons).toEqual([expect.objectContaining({ code: 'quiet_hours', zone: 'America/New_York', local_time: '07:59' })]);
    expect(await at('2026-11-18T13:00:00Z')).toMatchObject({ outcome: 'allow', reasons: [] });
    expect(await at('2026-11-19T01:59:00Z')).toMatchObject({ outcome: 'allow', reasons: [] });
    const late = await at('2026-11-19T02:00:00Z');
    expect(late).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-19T13:00:00.000Z' });
    expect(codes(late)).toEqual(['quiet_hours']);
    // An offset in `at` names the same instant.
    expect((await at('2026-11-18T07:59:00-05:00')).evaluated_at).toBe('2026-11-18T12:59:00.000Z');
  });

  it('zones and states from stored contacts: a two-zone area code, a contact timezone that disagrees, a DST day, unsupported numbers', async () => {
    const info = async (over: Record<string, unknown>, at: string) => {
      const c = await contact(m.api, { consent: consent({ scope: { purposes: [INFO_SUBJECT] } }), ...over });
      return (await preflight(m.api, { agent_id: m.informational.id, contact_id: c.id, at })).body;
    };
    // 208 spans Mountain and Pacific time: 08:30 in Boise, 07:30 in the Pacific part.
    const idaho = await info({ phone_e164: unique('208') }, '2026-11-18T15:30:00Z');
    expect(idaho).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-18T16:00:00.000Z', callee: { states: ['US-ID'] } });
    expect(idaho.reasons).toEqual([expect.objectContaining({ code: 'quiet_hours', zone: 'America/Los_Angeles', local_time: '07:30' })]);
    // A New York number whose contact lives in Los Angeles: both zones count, the contact's first.
    const moved = await info({ timezone: 'America/Los_Angeles' }, '2026-11-18T15:30:00Z');
    expect(moved).toMatchObject({
      outcome: 'defer',
      next_permitted_at: '2026-11-18T16:00:00.000Z',
      callee: { zones: ['America/Los_Angeles', 'America/New_York'] },
    });
    // 12:30 UTC is 08:30 EDT on Saturday 31 October, 07:30 EST on Sunday 1 November (clocks went back).
    expect((await info({}, '2026-10-31T12:30:00Z')).outcome).toBe('allow');
    expect(await info({}, '2026-11-01T12:30:00Z')).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-01T13:00:00.000Z' });
    for (const phone of ['+14165550123', '+442071234567']) {
      const d = await info({ phone_e164: phone }, AT);
      expect(d).toMatchObject({ outcome: 'block', disposition: 'blocked_by_policy' });
      expect(codes(d)).toContain('jurisdiction_unsupported');
    }
  });

  it('state and profile windows for marketing: TX Sunday 11:59/12:00, the AL Sunday ban, the profile’s own calling window', async () => {
    const marketingAt = async (c: { id: string }, at: string) => (await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at })).body;
    const texas = await contact(m.api, { phone_e164: unique('512') });
    const sunday1159 = await marketingAt(texas, '2026-11-22T17:59:00Z'); // 11:59 CST, Sunday
    expect(sunday1159).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-22T18:00:00.000Z' });
    expect(sunday1159.reasons).toEqual([expect.objectContaining({ code: 'state_quiet_hours', state: 'US-TX', weekday: 'Sunday' })]);
    expect(await marketingAt(texas, '2026-11-22T18:00:00Z')).toMatchObject({ outcome: 'allow', reasons: [] });

    const alabama = await contact(m.api, { phone_e164: unique('205') });
    const banned = await marketingAt(alabama, '2026-11-22T18:00:00Z');
    expect(banned).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-23T15:00:00.000Z' }); // Monday 09:00 CST, the profile's window
    expect(codes(banned)).toEqual(['state_sunday_ban']);

    const early = await marketingAt(await contact(m.api), '2026-11-18T13:30:00Z'); // 08:30 in New York, window 09:00–20:00
    expect(early).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-18T14:00:00.000Z' });
    expect(early.reasons).toEqual([expect.objectContaining({ code: 'calling_window', window: { start: '09:00', end: '20:00' } })]);
  });

  it('FL: the fourth marketing call on the same subject in 24 h is deferred until the oldest is 24 h old', async () => {
    const c = await contact(m.api, { phone_e164: unique('305') });
    const atMs = Date.parse(AT);
    const ago = (h: number) => new Date(atMs - h * 3_600_000).toISOString();
    // Each as queued (placed_at null), then placed as a dial places it: its own transaction, with the attempt's placement items.
    const attempt = async (placedAt: string | null, subject: string | null = SUBJECT) => {
      const id = newId('att');
      await db().send(
        new TransactWriteCommand({
          TransactItems: [contactAttemptPut({ id, tenant_id: m.tenantId, contact_id: c.id, subject, placed_at: null, created_at: ago(30) })],
        }),
      );
      if (placedAt)
        await db().send(
          new TransactWriteCommand({ TransactItems: attemptPlacedItems({ tenant_id: m.tenantId, contact_id: c.id, attempt_id: id, subject }, placedAt) }),
        );
    };
    // Not counted: another subject, one placed 25 h ago, one never placed, one after `at`.
    for (const [placedAt, subject] of [
      [ago(1), 'other_subject'],
      [ago(25), SUBJECT],
      [null, SUBJECT],
      [new Date(atMs + 60_000).toISOString(), SUBJECT],
      [ago(23), SUBJECT],
      [ago(5), SUBJECT],
    ] as const)
      await attempt(placedAt, subject);
    const third = (await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at: AT })).body;
    expect(third).toMatchObject({ outcome: 'allow', callee: { states: ['US-FL'] } });
    expect(third.caller.phone_number_id).toBe(m.number415.id); // no 305 number: the oldest usable one

    await attempt(ago(1));
    const fourth = (await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at: AT })).body;
    expect(fourth).toMatchObject({ outcome: 'defer', next_permitted_at: ago(-1) });
    expect(fourth.reasons).toEqual([expect.objectContaining({ code: 'state_frequency_cap', state: 'US-FL', subject: SUBJECT, attempts: 3, until: ago(-1) })]);
    // The informational agent's calls are not capped.
    expect(
      (await preflight(m.api, { agent_id: m.informational.id, contact_id: c.id, at: AT })).body.reasons.map((r: { code: string }) => r.code),
    ).not.toContain('state_frequency_cap');
  });

  it('no usable caller number: defer until the daily caps reset; a tenant with no number at all: block no_caller_number', async () => {
    const t = await newTenant('Capped');
    const api = client(stack, t.token);
    const accountId = await mockAccount(api, { ftc_san_refs: [{ san: 'SAN-3', area_codes: ['212'] }] });
    const a = await agent(api);
    const c = await contact(api);

    const none = (await preflight(api, { agent_id: a.id, contact_id: c.id, at: AT })).body;
    expect(none).toMatchObject({ outcome: 'block', disposition: 'blocked_by_policy', next_permitted_at: null, caller: null });
    expect(codes(none)).toEqual(['no_caller_number']); // the account's SAN still covers 212

    const n = await activeNumber(api, { accountId, phone: randomNumber('212') });
    expect((await api('PATCH', `/v1/phone-numbers/${n.id}`, { body: { daily_dial_cap: 1 } })).status).toBe(200);
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.phoneNumber(t.tenantId, n.id),
        UpdateExpression: 'SET dials_day = :d, dials_count = :c',
        ExpressionAttributeValues: { ':d': '2026-11-18', ':c': 1 },
      }),
    );
    const capped = (await preflight(api, { agent_id: a.id, contact_id: c.id, at: AT })).body;
    expect(capped).toMatchObject({ outcome: 'defer', disposition: null, next_permitted_at: '2026-11-19T00:00:00.000Z', caller: null });
    expect(capped.reasons).toEqual([expect.objectContaining({ code: 'no_caller_number', until: '2026-11-19T00:00:00.000Z' })]);
    // When the caps reset (19:00 in New York) a call is inside every window: allowed from that number.
    expect((await preflight(api, { agent_id: a.id, contact_id: c.id, at: '2026-11-19T00:00:00Z' })).body).toMatchObject({
      outcome: 'allow',
      caller: { phone_number_id: n.id },
    });
    // The caps reset at 00:00 UTC (19:00 in New York); an agent whose window ends at 18:00 waits for the later of the two.
    const daytime = await agent(api, { name: 'Daytime', calling_window: { start: '09:00', end: '18:00' } });
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.phoneNumber(t.tenantId, n.id),
        UpdateExpression: 'SET dials_day = :d',
        ExpressionAttributeValues: { ':d': '2026-11-19' },
      }),
    );
    const later = (await preflight(api, { agent_id: daytime.id, contact_id: c.id, at: '2026-11-19T20:00:00Z' })).body;
    expect(later).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-20T14:00:00.000Z' });
    expect(codes(later)).toEqual(['no_caller_number']);
    // A block outranks the caller deferral, and keeps its own disposition.
    await api('POST', '/v1/suppressions', { body: { phone_e164: c.phone_e164, reason: 'manual' } });
    const both = (await preflight(api, { agent_id: a.id, contact_id: c.id, at: '2026-11-19T15:00:00Z' })).body;
    expect(both).toMatchObject({ outcome: 'block', disposition: 'dnc_hit', next_permitted_at: null });
    expect(codes(both)).toEqual(['internal_dnc', 'no_caller_number']);
  });
});

describe('POST /v1/calls/preflight: numbers outside the US, with the facts a real tenant has', () => {
  // m's account holds SANs for US area codes only, and no snapshot is loaded for these area
  // codes (none exists: the registry is American). Judged as marketing, the strictest purpose.
  it('marketing to Canada (416), the Bahamas (242) and toll-free (800) → blocked_by_policy jurisdiction_unsupported, not scrub_blocked', async () => {
    for (const areaCode of ['416', '242', '800']) {
      const c = await contact(m.api, { phone_e164: unique(areaCode) });
      const d = (await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at: AT })).body;
      expect({ areaCode, outcome: d.outcome, disposition: d.disposition, next: d.next_permitted_at, codes: codes(d) }).toEqual({
        areaCode,
        outcome: 'block',
        disposition: 'blocked_by_policy',
        next: null,
        codes: ['jurisdiction_unsupported'],
      });
    }
  });

  it('no US calling-time rule speaks for them (06:00 in Toronto); the suppression list still does (dnc_hit)', async () => {
    const c = await contact(m.api, { phone_e164: unique('416') });
    const early = (await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at: '2026-11-18T11:00:00Z' })).body;
    expect(early).toMatchObject({
      outcome: 'block',
      disposition: 'blocked_by_policy',
      next_permitted_at: null,
      callee: { zones: ['America/Toronto'], states: [] },
    });
    expect(codes(early)).toEqual(['jurisdiction_unsupported']);
    expect((await m.api('POST', '/v1/suppressions', { body: { phone_e164: c.phone_e164, reason: 'opt_out' } })).status).toBe(201);
    const suppressed = (await preflight(m.api, { agent_id: m.marketing.id, contact_id: c.id, at: AT })).body;
    expect(suppressed).toMatchObject({ outcome: 'block', disposition: 'dnc_hit' });
    expect(codes(suppressed)).toEqual(['internal_dnc', 'jurisdiction_unsupported']);
  });
});

describe('POST /v1/calls/preflight: state windows at their boundaries, the spring-forward day, a two-zone area code', () => {
  // A tenant whose SAN covers every area code judged here, each with a fresh snapshot, and a
  // marketing agent with no window of its own, so only the law's windows speak.
  const AREA_CODES = ['305', '405', '410', '206', '203', '850'];
  let api: Api;
  let anytime: { id: string };
  let reminders: { id: string };
  beforeAll(async () => {
    for (const ac of AREA_CODES.filter((a) => a !== '305')) await replaceDncSnapshot(ac, '2026-11-01', file(ac, [`+1${ac}5550100`]), new Date());
    const t = await newTenant('Windows');
    api = client(stack, t.token);
    const accountId = await mockAccount(api, { ftc_san_refs: [{ san: 'SAN-WIN', area_codes: AREA_CODES }] });
    await activeNumber(api, { accountId, phone: randomNumber('212') });
    anytime = await agent(api, { name: 'Anytime', calling_window: undefined });
    reminders = await agent(api, { name: 'Reminders', call_purpose: 'informational', subject: INFO_SUBJECT, calling_window: undefined });
  });

  /** The UTC instant of a wall-clock time at a fixed UTC offset (November: New York −5, Chicago −6, Los Angeles −8). */
  const local = (date: string, hhmm: string, offsetHours: number) => new Date(Date.parse(`${date}T${hhmm}:00Z`) - offsetHours * 3_600_000).toISOString();
  const judge = async (agentId: string, c: { id: string }, at: string) => (await preflight(api, { agent_id: agentId, contact_id: c.id, at })).body;

  it.each([
    { state: 'US-FL', areaCode: '305', zone: 'America/New_York', offset: -5, start: '08:00' },
    { state: 'US-OK', areaCode: '405', zone: 'America/Chicago', offset: -6, start: '08:00' },
    { state: 'US-MD', areaCode: '410', zone: 'America/New_York', offset: -5, start: '08:00' },
    { state: 'US-WA', areaCode: '206', zone: 'America/Los_Angeles', offset: -8, start: '08:00' },
    { state: 'US-CT', areaCode: '203', zone: 'America/New_York', offset: -5, start: '09:00' },
  ])('$state marketing window $start–20:00 (Wednesday 18 November)', async ({ state, areaCode, zone, offset, start }) => {
    const c = await contact(api, { phone_e164: unique(areaCode) });
    const minuteBefore = `${String(Number(start.slice(0, 2)) - 1).padStart(2, '0')}:59`;
    const before = await judge(anytime.id, c, local('2026-11-18', minuteBefore, offset));
    // Before 08:00 the federal hours are closed too; CT's 08:59 is inside them.
    expect({ outcome: before.outcome, next: before.next_permitted_at, codes: codes(before) }).toEqual({
      outcome: 'defer',
      next: local('2026-11-18', start, offset),
      codes: start === '08:00' ? ['quiet_hours', 'state_quiet_hours'] : ['state_quiet_hours'],
    });
    expect(before.callee).toEqual({ zones: [zone], states: [state] });
    expect(before.reasons.find((r: { code: string }) => r.code === 'state_quiet_hours')).toMatchObject({
      state,
      zone,
      local_time: minuteBefore,
      window: { start, end: '20:00' },
    });
    expect(await judge(anytime.id, c, local('2026-11-18', start, offset))).toMatchObject({ outcome: 'allow', reasons: [] });
    expect(await judge(anytime.id, c, local('2026-11-18', '19:59', offset))).toMatchObject({ outcome: 'allow', reasons: [] });
    const closing = await judge(anytime.id, c, local('2026-11-18', '20:00', offset));
    expect({ outcome: closing.outcome, next: closing.next_permitted_at, codes: codes(closing) }).toEqual({
      outcome: 'defer',
      next: local('2026-11-19', start, offset),
      codes: ['state_quiet_hours'],
    });
    expect(closing.reasons[0]).toMatchObject({ state, zone, local_time: '20:00', weekday: 'Wednesday' });
    // Informational calls keep the federal 08:00–21:00 only.
    const info = await contact(api, { phone_e164: unique(areaCode), consent: consent({ scope: { purposes: [INFO_SUBJECT] } }) });
    expect((await judge(reminders.id, info, local('2026-11-18', '20:00', offset))).outcome).toBe('allow');
  });

  it('spring forward in New York (Sunday 8 March 2026, 02:00 EST → 03:00 EDT): the window is read on the new offset', async () => {
    const c = await contact(api, { consent: consent({ scope: { purposes: [INFO_SUBJECT] }, captured_at: '2026-01-01T00:00:00Z' }) });
    const at = (instant: string) => judge(reminders.id, c, instant);
    // Saturday 21:00 EST: the night crosses the gap; the morning opens at 08:00 EDT (12:00Z), not 08:00 EST (13:00Z).
    expect(await at('2026-03-08T02:00:00Z')).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-03-08T12:00:00.000Z' });
    // 01:30 EST, half an hour before the gap.
    expect(await at('2026-03-08T06:30:00Z')).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-03-08T12:00:00.000Z' });
    const early = await at('2026-03-08T11:59:00Z');
    expect(early).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-03-08T12:00:00.000Z' });
    expect(early.reasons).toEqual([expect.objectContaining({ code: 'quiet_hours', zone: 'America/New_York', local_time: '07:59', weekday: 'Sunday' })]);
    expect(await at('2026-03-08T12:00:00Z')).toMatchObject({ outcome: 'allow', reasons: [] }); // 08:00 EDT
    expect(await at('2026-03-09T00:59:00Z')).toMatchObject({ outcome: 'allow', reasons: [] }); // 20:59 EDT
    const late = await at('2026-03-09T01:00:00Z'); // 21:00 EDT
    expect(late).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-03-09T12:00:00.000Z' });
    expect(late.reasons).toEqual([expect.objectContaining({ code: 'quiet_hours', local_time: '21:00' })]);
  });

  it('850 spans Central and Eastern time: the call waits while either zone is closed', async () => {
    const info = await contact(api, { phone_e164: unique('850'), consent: consent({ scope: { purposes: [INFO_SUBJECT] } }) });
    const morning = await judge(reminders.id, info, '2026-11-18T13:30:00Z'); // 08:30 New York, 07:30 Chicago
    expect(morning).toMatchObject({
      outcome: 'defer',
      next_permitted_at: '2026-11-18T14:00:00.000Z',
      callee: { zones: ['America/Chicago', 'America/New_York'], states: ['US-FL'] },
    });
    expect(morning.reasons).toEqual([expect.objectContaining({ code: 'quiet_hours', zone: 'America/Chicago', local_time: '07:30' })]);
    expect(await judge(reminders.id, info, '2026-11-18T14:00:00Z')).toMatchObject({ outcome: 'allow', reasons: [] });
    expect(await judge(reminders.id, info, '2026-11-19T01:59:00Z')).toMatchObject({ outcome: 'allow', reasons: [] }); // 20:59 New York
    const night = await judge(reminders.id, info, '2026-11-19T02:00:00Z'); // 21:00 New York, 20:00 Chicago
    expect(night).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-19T14:00:00.000Z' });
    expect(night.reasons).toEqual([expect.objectContaining({ code: 'quiet_hours', zone: 'America/New_York', local_time: '21:00' })]);

    // Marketing: Florida's 20:00 is reached in New York an hour before Chicago.
    const sales = await contact(api, { phone_e164: unique('850') });
    expect(await judge(anytime.id, sales, '2026-11-19T00:59:00Z')).toMatchObject({ outcome: 'allow', reasons: [] });
    const evening = await judge(anytime.id, sales, '2026-11-19T01:00:00Z'); // 20:00 New York, 19:00 Chicago
    expect(evening).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-19T14:00:00.000Z' });
    expect(evening.reasons).toEqual([expect.objectContaining({ code: 'state_quiet_hours', state: 'US-FL', zone: 'America/New_York', local_time: '20:00' })]);
  });
});

describe('POST /v1/calls/preflight: refusals', () => {
  it('unknown agent or contact → 422 at body.agent_id / body.contact_id; another tenant’s ids are unknown', async () => {
    const c = await contact(m.api);
    const missing = 'agt_01JZZZZZZZZZZZZZZZZZZZZZZZ';
    expect(locs((await preflight(m.api, { agent_id: missing, contact_id: c.id })).body)).toEqual(['body.agent_id:value_error']);
    expect(locs((await preflight(m.api, { agent_id: m.marketing.id, contact_id: 'con_01JZZZZZZZZZZZZZZZZZZZZZZZ' })).body)).toEqual([
      'body.contact_id:value_error',
    ]);
    expect(locs((await preflight(m.api, { agent_id: 'not an id', contact_id: 'nor this' })).body)).toEqual([
      'body.agent_id:value_error',
      'body.contact_id:value_error',
    ]);

    const other = await newTenant('Stranger');
    const stranger = client(stack, other.token);
    const res = await preflight(stranger, { agent_id: m.marketing.id, contact_id: c.id });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(['body.agent_id:value_error', 'body.contact_id:value_error']);
  });

  it('an agent with no published version → 409 agent_not_published', async () => {
    const c = await contact(m.api);
    const res = await preflight(m.api, { agent_id: await draftAgent(m.api), contact_id: c.id });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'agent_not_published' });
    // An unknown contact is still named (422 first: the request itself is wrong).
    expect((await preflight(m.api, { agent_id: await draftAgent(m.api), contact_id: 'con_01JZZZZZZZZZZZZZZZZZZZZZZZ' })).status).toBe(422);
  });

  it('the queue-call body rules: closed objects, duplicate question ids, reserved context keys, caps, `at`', async () => {
    const c = await contact(m.api);
    const base = { agent_id: m.marketing.id, contact_id: c.id };
    const refused = async (body: Record<string, unknown>) => {
      const res = await preflight(m.api, { ...base, ...body });
      expect(res.status).toBe(422);
      return locs(res.body);
    };
    expect(await refused({ to: '+12125550123' })).toEqual(['body.to:extra_forbidden']);
    expect(await refused({ questions: [{ id: 'a', prompt: 'x', weight: 2 }] })).toEqual(['body.questions.0.weight:extra_forbidden']);
    expect(
      await refused({
        questions: [
          { id: 'a', prompt: 'x' },
          { id: 'a', prompt: 'y' },
        ],
      }),
    ).toEqual(['body.questions.1.id:duplicate']);
    expect(await refused({ context: { contact_first_name: 'Mallory', Caller_Number: '+1', plan: 'gold' } })).toEqual([
      'body.context.Caller_Number:context_key_reserved',
      'body.context.contact_first_name:context_key_reserved',
    ]);
    expect(await refused({ questions: Array.from({ length: 21 }, (_, i) => ({ id: `q${i}`, prompt: 'x' })) })).toEqual(['body.questions:too_long']);
    expect(await refused({ at: 'tomorrow' })).toEqual(['body.at:datetime_from_date_parsing']);
    expect(await refused({ agent_id: undefined })).toEqual(['body.agent_id:missing']);
  });

  it('writes nothing: the table is the same before and after every kind of answer', async () => {
    const c = await contact(m.api);
    const scan = async () => {
      const items: Record<string, unknown>[] = [];
      let start: ScanCommandInput['ExclusiveStartKey'];
      do {
        const page = await db().send(new ScanCommand({ TableName: tableName(), ConsistentRead: true, ExclusiveStartKey: start }));
        items.push(...(page.Items ?? []));
        start = page.LastEvaluatedKey;
      } while (start);
      return items.map((i) => JSON.stringify(i, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v))).sort();
    };
    const draft = await draftAgent(m.api);
    const before = await scan();
    expect(before.length).toBeGreaterThan(10);
    const statuses = [];
    for (const body of [
      { agent_id: m.marketing.id, contact_id: c.id },
      { agent_id: m.marketing.id, contact_id: c.id, at: '2026-11-18T02:00:00Z' },
      { agent_id: m.marketing.id, contact_id: 'con_01JZZZZZZZZZZZZZZZZZZZZZZZ' },
      { agent_id: draft, contact_id: c.id },
    ]) {
      statuses.push((await preflight(m.api, body)).status);
    }
    expect(statuses).toEqual([200, 200, 422, 409]);
    expect(await scan()).toEqual(before);
  });
});
