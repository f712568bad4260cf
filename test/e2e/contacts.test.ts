import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../shared/admin/bootstrap.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

const HASH = 'a'.repeat(64);
const consent = (over: Record<string, unknown> = {}) => ({
  consent_basis: 'pewc',
  captured_at: '2026-10-01T12:00:00Z',
  scope: { purposes: ['appointment_reminders'], channels: ['voice'] },
  evidence: { artifact_type: 'web_form', artifact_ref: 'https://acme.test/forms/1#sub=9', content_hash: HASH },
  ...over,
});
let phoneSeq = 0;
const phone = () => `+1415555${String(1000 + ++phoneSeq).slice(-4)}`;

describe('POST /v1/contacts', () => {
  it('creates the contact with its consent, linked to the server-owned API attestation', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const p = phone();
    const res = await api('POST', '/v1/contacts', {
      body: {
        phone_e164: p,
        first_name: 'Ada',
        email: 'ada@example.com',
        timezone: 'America/New_York',
        tags: ['vip'],
        lead_status: 'new',
        owner_user_id: t.userId,
        attributes: { plan: 'gold', seats: 3 },
        consent: consent({ disclosure_text_shown: 'We may call you.' }),
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      phone_e164: p,
      first_name: 'Ada',
      last_name: null,
      best_consent_class: 'pewc',
      do_not_call: false,
      lead_status: 'new',
      owner_user_id: t.userId,
      tags: ['vip'],
      jurisdictions: [],
      attributes: { plan: 'gold', seats: 3 },
    });
    expect(res.body.id).toMatch(/^con_/);
    const consents = await api('GET', `/v1/contacts/${res.body.id}/consents`);
    expect(consents.status).toBe(200);
    expect(consents.body.data).toHaveLength(1);
    expect(consents.body.data[0]).toMatchObject({
      consent_basis: 'pewc',
      valid: true,
      scope: { purposes: ['appointment_reminders'], channels: ['voice'] },
      evidence: { content_hash: HASH },
      disclosure_text_shown: 'We may call you.',
      attestation: { source: 'api', import_id: null },
    });
    // The same standing attestation serves every API-created consent of the tenant.
    const second = (await api('POST', '/v1/contacts', { body: { phone_e164: phone(), consent: consent() } })).body;
    const secondConsent = (await api('GET', `/v1/contacts/${second.id}/consents`)).body.data[0];
    expect(secondConsent.attestation.id).toBe(consents.body.data[0].attestation.id);
    expect((await api('GET', `/v1/contacts/${res.body.id}`)).body).toEqual(res.body);
  });

  it('derives best_consent_class from the strongest consent still valid', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const expired = await api('POST', '/v1/contacts', {
      body: { phone_e164: phone(), consent: consent({ captured_at: '2019-06-01T00:00:00Z', expires_at: '2020-01-01T00:00:00Z' }) },
    });
    expect(expired.status).toBe(200);
    expect(expired.body.best_consent_class).toBeNull();
    expect((await api('GET', `/v1/contacts/${expired.body.id}/consents`)).body.data[0].valid).toBe(false);
    const ebr = await api('POST', '/v1/contacts', {
      body: { phone_e164: phone(), consent: consent({ consent_basis: 'ebr', expires_at: '2099-01-01T00:00:00Z' }) },
    });
    expect(ebr.body.best_consent_class).toBe('ebr');
  });

  it('reports every rule broken in one 422 with Pydantic locs, and writes nothing', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const res = await api('POST', '/v1/contacts', {
      body: {
        phone_e164: '+0123',
        lead_status: 'hot',
        tags: Array.from({ length: 33 }, (_, i) => `t${i}`),
        email: 'not-an-email',
        consent: {
          consent_basis: 'verbal',
          captured_at: 'yesterday',
          scope: {},
          evidence: { artifact_type: '', artifact_ref: 'x'.repeat(2001), content_hash: 'A'.repeat(64) },
          attestation_id: 'att_mine',
        },
      },
    });
    expect(res.status).toBe(422);
    const got = res.body.detail.map((d: { loc: (string | number)[]; type: string }) => `${d.loc.join('.')}:${d.type}`).sort();
    expect(got).toEqual(
      [
        'body.phone_e164:string_pattern_mismatch',
        'body.lead_status:enum',
        'body.tags:too_long',
        'body.email:value_error',
        'body.consent.consent_basis:enum',
        'body.consent.captured_at:datetime_from_date_parsing',
        'body.consent.scope:too_short',
        'body.consent.evidence.artifact_type:string_too_short',
        'body.consent.evidence.artifact_ref:string_too_long',
        'body.consent.evidence.content_hash:string_pattern_mismatch',
        'body.consent.attestation_id:extra_forbidden',
      ].sort(),
    );
    for (const d of res.body.detail) expect(typeof d.msg).toBe('string');
    const missing = await api('POST', '/v1/contacts', { body: { phone_e164: phone() } });
    expect(missing.body.detail).toEqual([{ loc: ['body', 'consent'], msg: 'Field required', type: 'missing' }]);
    const noScope = await api('POST', '/v1/contacts', { body: { phone_e164: phone(), consent: { ...consent(), scope: undefined } } });
    expect(noScope.body.detail[0]).toMatchObject({ loc: ['body', 'consent', 'scope'], type: 'missing' });
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
  });

  it('refuses an owner_user_id that is not a user of the tenant', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const res = await client(stack, a.token)('POST', '/v1/contacts', { body: { phone_e164: phone(), owner_user_id: b.userId, consent: consent() } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'owner_user_id'], type: 'user_not_found' });
    expect((await client(stack, a.token)('GET', '/v1/contacts')).body.data).toEqual([]);
  });

  it('keeps a phone unique within a tenant (409 naming the existing contact) but not across tenants', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const p = phone();
    const first = await client(stack, a.token)('POST', '/v1/contacts', { body: { phone_e164: p, consent: consent() } });
    const dup = await client(stack, a.token)('POST', '/v1/contacts', { body: { phone_e164: p, first_name: 'Other', consent: consent() } });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'contact_exists', contact_id: first.body.id });
    expect((await client(stack, a.token)('GET', `/v1/contacts/${first.body.id}/consents`)).body.data).toHaveLength(1);
    const elsewhere = await client(stack, b.token)('POST', '/v1/contacts', { body: { phone_e164: p, consent: consent() } });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.id).not.toBe(first.body.id);
  });

  it("answers 404 for another tenant's contact, exactly like a missing one", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const theirs = (await client(stack, b.token)('POST', '/v1/contacts', { body: { phone_e164: phone(), consent: consent() } })).body;
    const api = client(stack, a.token);
    for (const path of [`/v1/contacts/${theirs.id}`, `/v1/contacts/${theirs.id}/consents`]) {
      const foreign = await api('GET', path);
      const missing = await api('GET', path.replace(theirs.id, 'con_01JZZZZZZZZZZZZZZZZZZZZZZZ'));
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(missing.body);
    }
  });
});

describe('Idempotency-Key on POST /v1/contacts', () => {
  it('replays the original result with Idempotent-Replay: true and creates nothing new', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const key = randomUUID();
    const body = { phone_e164: phone(), first_name: 'Bo', consent: consent() };
    const first = await api('POST', '/v1/contacts', { body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replay')).toBeNull();
    // Same request with keys in another order is the same request.
    const reordered = JSON.parse(JSON.stringify({ consent: body.consent, first_name: 'Bo', phone_e164: body.phone_e164 }));
    const replay = await api('POST', '/v1/contacts', { body: reordered, headers: { 'idempotency-key': key } });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await api('GET', '/v1/contacts')).body.data).toHaveLength(1);
  });

  it('refuses the same key with a different request (422 on the header) and keys are per tenant', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const key = randomUUID();
    await api('POST', '/v1/contacts', { body: { phone_e164: phone(), consent: consent() }, headers: { 'idempotency-key': key } });
    const reuse = await api('POST', '/v1/contacts', { body: { phone_e164: phone(), consent: consent() }, headers: { 'idempotency-key': key } });
    expect(reuse.status).toBe(422);
    expect(reuse.body.detail[0]).toMatchObject({ loc: ['header', 'idempotency-key'], type: 'idempotency_key_reused' });
    const other = await newTenant();
    const theirs = await client(stack, other.token)('POST', '/v1/contacts', {
      body: { phone_e164: phone(), consent: consent() },
      headers: { 'idempotency-key': key },
    });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replay')).toBeNull();
  });

  it('stores nothing for a request that fails validation or conflicts, so the key can be reused after a fix', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const key = randomUUID();
    const p = phone();
    expect((await api('POST', '/v1/contacts', { body: { phone_e164: p }, headers: { 'idempotency-key': key } })).status).toBe(422);
    const fixed = await api('POST', '/v1/contacts', { body: { phone_e164: p, consent: consent() }, headers: { 'idempotency-key': key } });
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('idempotent-replay')).toBeNull();
  });

  it('lets exactly one of concurrent requests with the same key do the work', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const key = randomUUID();
    const body = { phone_e164: phone(), consent: consent() };
    const results = await Promise.all(Array.from({ length: 8 }, () => api('POST', '/v1/contacts', { body, headers: { 'idempotency-key': key } })));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const fresh = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replay') === null);
    expect(fresh).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('idempotency_key_in_use');
    for (const r of results.filter((x) => x.status === 200)) expect(r.body.id).toBe(fresh[0]!.body.id);
    expect((await api('GET', '/v1/contacts')).body.data).toHaveLength(1);
    const later = await api('POST', '/v1/contacts', { body, headers: { 'idempotency-key': key } });
    expect(later.headers.get('idempotent-replay')).toBe('true');
  });
});

describe('GET /v1/contacts', () => {
  it('lists newest first with the filter grammar and exact has_more', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const manager = await createUser({ tenantId: t.tenantId, email: 'm@acme.test', role: 'manager' });
    const made: { id: string; phone_e164: string; lead_status: string | null }[] = [];
    const statuses = ['new', 'working', 'won', 'new', 'lost', 'new'];
    for (const [i, s] of statuses.entries()) {
      const res = await api('POST', '/v1/contacts', {
        body: { phone_e164: phone(), lead_status: s, ...(i % 2 ? { owner_user_id: manager.user_id } : {}), consent: consent() },
      });
      made.push(res.body);
    }
    const all = await api('GET', '/v1/contacts');
    expect(all.body.data.map((c: { id: string }) => c.id)).toEqual(made.map((c) => c.id).reverse());
    const news = await api('GET', '/v1/contacts?lead_status=new&limit=2');
    expect(news.body.data).toHaveLength(2);
    expect(news.body.has_more).toBe(true);
    const rest = await api('GET', `/v1/contacts?lead_status=new&limit=2&cursor=${encodeURIComponent(news.body.next_cursor)}`);
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.has_more).toBe(false);
    expect((await api('GET', '/v1/contacts?lead_status=won,lost')).body.data).toHaveLength(2);
    expect((await api('GET', '/v1/contacts?lead_status.in=won,lost')).body.data).toHaveLength(2);
    expect((await api('GET', `/v1/contacts?owner_user_id=${manager.user_id}`)).body.data).toHaveLength(3);
    const byPhone = await api('GET', `/v1/contacts?phone_e164=${encodeURIComponent(made[2]!.phone_e164)}`);
    expect(byPhone.body.data.map((c: { id: string }) => c.id)).toEqual([made[2]!.id]);
    const since = all.body.data[2].created_at;
    expect((await api('GET', `/v1/contacts?created_at.gte=${encodeURIComponent(since)}`)).body.data).toHaveLength(3);
    expect((await api('GET', `/v1/contacts?created_at.lt=${encodeURIComponent(since)}`)).body.data).toHaveLength(3);
    expect((await api('GET', '/v1/contacts?updated_at.gt=2999-01-01')).body.data).toHaveLength(0);
    for (const [q, loc] of [
      ['lead_status=hot', 'lead_status'],
      ['created_at.gte=soon', 'created_at.gte'],
      ['colour=red', 'colour'],
      ['phone_e164=12', 'phone_e164'],
    ]) {
      const bad = await api('GET', `/v1/contacts?${q}`);
      expect(bad.status, q).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['query', loc]);
    }
    const other = await newTenant();
    expect((await client(stack, other.token)('GET', '/v1/contacts')).body.data).toEqual([]);
  });
});
