import { describe, expect, it } from 'vitest';
import { createUser } from '../../shared/admin/bootstrap.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

describe('identity and API keys over HTTP', () => {
  it('GET /v1/me names the key, its role and its tenant', async () => {
    const t = await newTenant('Acme Dental');
    const res = await client(stack, t.token)('GET', '/v1/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'principal',
      type: 'api_key',
      role: 'admin',
      tenant: { id: t.tenantId, name: 'Acme Dental', status: 'active' },
      api_key: { id: t.keyId },
    });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('creates a key whose secret is shown once and works at once; lists never show it', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const created = await api('POST', '/v1/api-keys', { body: { name: 'CI', role: 'member' } });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^vak_ten_/);
    expect(created.body).toMatchObject({ name: 'CI', role: 'member', status: 'active' });
    expect((await client(stack, created.body.secret)('GET', '/v1/me')).body.role).toBe('member');
    const list = await api('GET', '/v1/api-keys');
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { id: string }) => k.id)).toEqual([created.body.id, t.keyId]);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret.split('.').at(-1));
    expect(list.body.data[0].redacted_secret).toBe(`vak_…${created.body.secret.slice(-4)}`);
    // No role named: the least privilege, member (never the caller's own admin).
    const defaulted = await api('POST', '/v1/api-keys', { body: { name: 'Default role' } });
    expect(defaulted.status).toBe(201);
    expect(defaulted.body.role).toBe('member');
    expect((await client(stack, defaulted.body.secret)('GET', '/v1/me')).body.role).toBe('member');
    expect((await client(stack, defaulted.body.secret)('GET', '/v1/api-keys')).status).toBe(403);
  });

  it('rotates in one step: the old key is refused on the very next request, the new one has the same authority', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const victim = (await api('POST', '/v1/api-keys', { body: { name: 'Worker', role: 'manager' } })).body;
    const rotated = await api('POST', `/v1/api-keys/${victim.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ name: 'Worker', role: 'manager', status: 'active', replaces_key_id: victim.id });
    expect(rotated.body.retired_key).toMatchObject({ id: victim.id, status: 'retired', replaced_by_key_id: rotated.body.id });
    const old = await client(stack, victim.secret)('GET', '/v1/me');
    expect(old.status).toBe(401);
    expect((await client(stack, rotated.body.secret)('GET', '/v1/me')).body.role).toBe('manager');
    const again = await api('POST', `/v1/api-keys/${victim.id}/rotate`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('api_key_retired');
  });

  it('an admin can rotate its own key; the old secret then stops working', async () => {
    const t = await newTenant();
    const rotated = await client(stack, t.token)('POST', `/v1/api-keys/${t.keyId}/rotate`);
    expect(rotated.status).toBe(200);
    expect((await client(stack, t.token)('GET', '/v1/me')).status).toBe(401);
    expect((await client(stack, rotated.body.secret)('GET', '/v1/me')).status).toBe(200);
  });

  it('only admins manage keys (403), and nobody mints above their own role', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    for (const role of ['manager', 'member']) {
      const key = (await api('POST', '/v1/api-keys', { body: { name: role, role } })).body;
      const weak = client(stack, key.secret);
      const attempts = [
        weak('GET', '/v1/api-keys'),
        weak('POST', '/v1/api-keys', { body: { name: 'x', role: 'admin' } }),
        weak('POST', `/v1/api-keys/${t.keyId}/rotate`),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
    }
    // The role check runs before anything is written: the admin still sees exactly 3 keys.
    expect((await api('GET', '/v1/api-keys')).body.data).toHaveLength(3);
  });

  it("another tenant's key id answers 404, exactly like one that does not exist", async () => {
    const a = await newTenant('A');
    const b = await newTenant('B');
    const foreign = await client(stack, a.token)('POST', `/v1/api-keys/${b.keyId}/rotate`);
    const missing = await client(stack, a.token)('POST', '/v1/api-keys/key_01JZZZZZZZZZZZZZZZZZZZZZZZ/rotate');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await client(stack, b.token)('GET', '/v1/me')).status).toBe(200);
  });

  it('lists users as a cursor page with limit bounds enforced', async () => {
    const t = await newTenant();
    for (const i of [1, 2, 3]) await createUser({ tenantId: t.tenantId, email: `u${i}@acme.test`, role: 'member' });
    const api = client(stack, t.token);
    const first = await api('GET', '/v1/users?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const second = await api('GET', `/v1/users?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data).toHaveLength(2);
    expect(second.body.has_more).toBe(false);
    const emails = [...first.body.data, ...second.body.data].map((u: { email: string }) => u.email);
    expect(new Set(emails).size).toBe(4);
    for (const bad of ['limit=0', 'limit=201', 'limit=abc', 'colour=red']) {
      const res = await api('GET', `/v1/users?${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.detail[0].loc[0]).toBe('query');
    }
    const other = await newTenant();
    const foreign = await client(stack, other.token)('GET', `/v1/users?cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail[0].loc).toEqual(['query', 'cursor']);
  });

  it('validates the create-key body with every problem in one 422, and malformed JSON on ["body"]', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const res = await api('POST', '/v1/api-keys', { body: { name: '', role: 'owner', scopes: [] } });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[]; type: string }) => [d.loc.join('.'), d.type])).toEqual([
      ['body.name', 'string_too_short'],
      ['body.role', 'enum'],
      ['body.scopes', 'extra_forbidden'],
    ]);
    const long = await api('POST', '/v1/api-keys', { body: { name: 'x'.repeat(101) } });
    expect(long.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_long' });
    const malformed = await api('POST', '/v1/api-keys', { raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail).toEqual([{ loc: ['body'], msg: 'Request body is not valid JSON', type: 'json_invalid' }]);
    const empty = await api('POST', '/v1/api-keys');
    expect(empty.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
    expect((await api('GET', '/v1/api-keys')).body.data).toHaveLength(1);
  });

  it('answers 410 for the withdrawn consent-proof route and 404 JSON for unknown routes', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const withdrawn = await api('POST', '/v1/voice-profiles/vp_1/consent-proof', { body: {} });
    expect(withdrawn.status).toBe(410);
    expect(withdrawn.body.code).toBe('gone');
    const unknown = await api('GET', '/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
  });

  it('serves health, readiness and the OpenAPI document without credentials', async () => {
    const api = client(stack);
    expect((await api('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await api('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', database: 'ok', tenant_isolation: 'ok', admin_plane: 'unwired' });
    const doc = await api('GET', '/openapi.json');
    expect(doc.body.info.version).toBe('0.1.0');
  });
});

describe('requests no route matches', () => {
  it('answer from the $default fallback: JSON 404, or 405 with Allow for a known path', async () => {
    const api = client(stack);
    const unknown = await api('GET', '/v2/anything');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Not Found', code: 'not_found' });
    expect(unknown.headers.get('x-request-id')).toBeTruthy();
    const wrongMethod = await api('DELETE', '/v1/api-keys');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.code).toBe('method_not_allowed');
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
  });
});
