import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../shared/admin/bootstrap.js';
import { useTestStack } from '../support/stack.js';
import { locs } from './agent-fixtures.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

const consent = {
  consent_basis: 'pewc',
  captured_at: '2026-10-01T12:00:00Z',
  scope: { purposes: ['appointment_reminders'] },
  evidence: { artifact_type: 'web_form', artifact_ref: 'https://acme.test/forms/1', content_hash: 'a'.repeat(64) },
};
let seq = 0;
const phone = () => `+1415556${String(1000 + ++seq).slice(-4)}`;
const path = (p: string) => `/v1/suppressions/${encodeURIComponent(p)}`;

async function tenantWithKeys() {
  const t = await newTenant();
  const member = (await createApiKey({ tenantId: t.tenantId, name: 'desk', role: 'member' })).api_key;
  return { ...t, admin: client(stack, t.token), member: client(stack, member.secret), memberKeyId: member.id };
}

describe('the suppression list', () => {
  it('adds (201), lists, lifts as history and re-adds a number; do_not_call follows at once', async () => {
    const t = await tenantWithKeys();
    const p = phone();
    const contact = (await t.admin('POST', '/v1/contacts', { body: { phone_e164: p, consent } })).body;
    expect(contact.do_not_call).toBe(false);

    const added = await t.member('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'opt_out', note: 'Asked on the call' } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      id: expect.stringMatching(/^sup_/),
      phone_e164: p,
      status: 'active',
      reason: 'opt_out',
      note: 'Asked on the call',
      source: 'api',
      source_id: t.memberKeyId,
      created_at: expect.any(String),
      lifted_at: null,
      lift_note: null,
      lifted_by: null,
    });
    const flagged = (await t.admin('GET', `/v1/contacts/${contact.id}`)).body;
    expect(flagged.do_not_call).toBe(true);
    expect(flagged.updated_at >= contact.updated_at).toBe(true);
    expect((await t.admin('GET', '/v1/contacts?do_not_call=true')).body.data.map((c: { id: string }) => c.id)).toEqual([contact.id]);

    const again = await t.admin('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'complaint' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'already_suppressed', suppression_id: added.body.id });

    const lifted = await t.admin('DELETE', path(p), { body: { note: 'Customer called back and asked to be called' } });
    expect(lifted.status).toBe(200);
    expect(lifted.body).toMatchObject({ id: added.body.id, status: 'lifted', lift_note: 'Customer called back and asked to be called', lifted_by: t.keyId });
    expect(Date.parse(lifted.body.lifted_at)).toBeGreaterThanOrEqual(Date.parse(added.body.created_at));
    expect((await t.admin('GET', `/v1/contacts/${contact.id}`)).body.do_not_call).toBe(false);
    expect((await t.admin('DELETE', path(p), { body: { note: 'again' } })).status).toBe(404);

    const readded = await t.admin('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'wrong_person' } });
    expect(readded.status).toBe(201);
    expect(readded.body.id).not.toBe(added.body.id);
    expect(readded.body.note).toBeNull();
    expect((await t.admin('GET', `/v1/contacts/${contact.id}`)).body.do_not_call).toBe(true);

    const listed = (await t.member('GET', '/v1/suppressions')).body;
    expect(listed.data.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      [readded.body.id, 'active'],
      [added.body.id, 'lifted'],
    ]);
    expect(listed.data[1]).toEqual(lifted.body);
    expect(listed.has_more).toBe(false);
  });

  it('suppresses a number no contact has yet; a contact created for it later is do_not_call', async () => {
    const t = await tenantWithKeys();
    const p = phone();
    expect((await t.admin('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'manual' } })).status).toBe(201);
    const contact = await t.admin('POST', '/v1/contacts', { body: { phone_e164: p, consent } });
    expect(contact.status).toBe(200);
    expect(contact.body.do_not_call).toBe(true);
    expect((await t.admin('DELETE', path(p), { body: { note: 'Number reassigned' } })).status).toBe(200);
    expect((await t.admin('GET', `/v1/contacts/${contact.body.id}`)).body.do_not_call).toBe(false);
    // A contact's do_not_call is the suppression list's, never the client's.
    const settable = await t.admin('POST', '/v1/contacts', { body: { phone_e164: phone(), do_not_call: true, consent } });
    expect(locs(settable.body)).toEqual(['body.do_not_call:extra_forbidden']);
  });

  it('filters by phone_e164, reason, status, source and created_at with the list grammar, and pages', async () => {
    const t = await tenantWithKeys();
    const [a, b, c] = [phone(), phone(), phone()];
    const first = (await t.admin('POST', '/v1/suppressions', { body: { phone_e164: a, reason: 'opt_out' } })).body;
    await t.admin('POST', '/v1/suppressions', { body: { phone_e164: b, reason: 'complaint' } });
    const third = (await t.admin('POST', '/v1/suppressions', { body: { phone_e164: c, reason: 'manual' } })).body;
    await t.admin('DELETE', path(b), { body: { note: 'ok' } });
    const ids = async (q: string) => (await t.admin('GET', `/v1/suppressions?${q}`)).body.data.map((s: { phone_e164: string }) => s.phone_e164);
    expect(await ids(`phone_e164=${encodeURIComponent(a)}`)).toEqual([a]);
    expect(await ids('reason=opt_out,manual')).toEqual([c, a]);
    expect(await ids('reason.in=complaint')).toEqual([b]);
    expect(await ids('status=active')).toEqual([c, a]);
    expect(await ids('status=lifted&source=api')).toEqual([b]);
    expect(await ids('source=import')).toEqual([]);
    expect(await ids(`created_at.gte=${encodeURIComponent(third.created_at)}`)).toEqual([c]);
    expect(await ids(`created_at.lte=${encodeURIComponent(first.created_at)}`)).toEqual([a]);
    const page = (await t.admin('GET', '/v1/suppressions?limit=2')).body;
    expect(page.has_more).toBe(true);
    const rest = (await t.admin('GET', `/v1/suppressions?limit=2&cursor=${encodeURIComponent(page.next_cursor)}`)).body;
    expect([...page.data, ...rest.data].map((s: { phone_e164: string }) => s.phone_e164)).toEqual([c, b, a]);
    expect(rest.has_more).toBe(false);
    const bad = await t.admin('GET', '/v1/suppressions?reason=angry&phone_e164=415&deleted=1');
    expect(locs(bad.body)).toEqual(['query.deleted:extra_forbidden', 'query.phone_e164:string_pattern_mismatch', 'query.reason:enum']);
  });

  it('refuses a bad phone, reason or note at its exact loc; the path number may be percent-encoded or not', async () => {
    const t = await tenantWithKeys();
    const bad = await t.admin('POST', '/v1/suppressions', { body: { phone_e164: '4155550100', reason: 'spam', note: '', extra: true } });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual(['body.extra:extra_forbidden', 'body.note:string_too_short', 'body.phone_e164:string_pattern_mismatch', 'body.reason:enum']);
    expect(locs((await t.admin('POST', '/v1/suppressions', { body: {} })).body)).toEqual(['body.phone_e164:missing', 'body.reason:missing']);

    for (const raw of ['4155550100', '%2B0415', 'not-a-number', '%2B1415%23x']) {
      const res = await t.admin('DELETE', `/v1/suppressions/${raw}`, { body: { note: 'x' } });
      expect(res.status, raw).toBe(422);
      expect(locs(res.body), raw).toEqual(['path.phone_e164:string_pattern_mismatch']);
    }
    const p = phone();
    await t.admin('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'manual' } });
    expect(locs((await t.admin('DELETE', path(p), {})).body)).toEqual(['body:missing']);
    expect(locs((await t.admin('DELETE', path(p), { body: { note: '  ' } })).body)).toEqual(['body.note:string_too_short']);
    const literalPlus = await t.admin('DELETE', `/v1/suppressions/${p}`, { body: { note: 'unencoded + is a plus in a path' } });
    expect(literalPlus.status).toBe(200);
    expect(literalPlus.body.phone_e164).toBe(p);
  });

  it('lets only admins lift: a member or manager is 403 and the entry stays active', async () => {
    const t = await tenantWithKeys();
    const manager = client(stack, (await createApiKey({ tenantId: t.tenantId, name: 'm', role: 'manager' })).api_key.secret);
    const p = phone();
    await t.member('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'opt_out' } });
    expect((await t.member('DELETE', path(p), { body: { note: 'please' } })).status).toBe(403);
    expect((await manager('DELETE', path(p), { body: { note: 'please' } })).status).toBe(403);
    expect((await t.member('GET', '/v1/suppressions?status=active')).body.data).toHaveLength(1);
  });

  it('keeps tenants apart: another tenant sees no entry, cannot lift it, and suppresses its own copy of the number', async () => {
    const a = await tenantWithKeys();
    const b = await tenantWithKeys();
    const p = phone();
    const bContact = (await b.admin('POST', '/v1/contacts', { body: { phone_e164: p, consent } })).body;
    await a.admin('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'opt_out' } });
    expect((await b.admin('GET', `/v1/contacts/${bContact.id}`)).body.do_not_call).toBe(false);
    expect((await b.admin('GET', '/v1/suppressions')).body.data).toEqual([]);
    expect((await b.admin('DELETE', path(p), { body: { note: 'not yours' } })).status).toBe(404);
    expect((await a.admin('GET', '/v1/suppressions?status=active')).body.data).toHaveLength(1);
    expect((await b.admin('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'manual' } })).status).toBe(201);
    expect((await b.admin('GET', `/v1/contacts/${bContact.id}`)).body.do_not_call).toBe(true);
  });

  it('replays a POST with the same Idempotency-Key without a second entry', async () => {
    const t = await tenantWithKeys();
    const key = randomUUID();
    const body = { phone_e164: phone(), reason: 'opt_out' };
    const first = await t.admin('POST', '/v1/suppressions', { body, headers: { 'idempotency-key': key } });
    const replay = await t.admin('POST', '/v1/suppressions', { body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await t.admin('GET', '/v1/suppressions')).body.data).toHaveLength(1);
  });

  it('keeps do_not_call exact when contacts and suppressions of one number race', async () => {
    const t = await tenantWithKeys();
    const numbers = Array.from({ length: 8 }, phone);
    const results = await Promise.all(
      numbers.flatMap((p) => [
        t.admin('POST', '/v1/contacts', { body: { phone_e164: p, consent } }),
        t.admin('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'opt_out' } }),
      ]),
    );
    expect(results.map((r) => r.status)).toEqual(numbers.flatMap(() => [200, 201]));
    for (const r of results.filter((_, i) => i % 2 === 0)) expect((await t.admin('GET', `/v1/contacts/${r.body.id}`)).body.do_not_call).toBe(true);
  });
});
