import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../shared/admin/bootstrap.js';
import { useTestStack } from '../support/stack.js';
import { locs, profileBody } from './agent-fixtures.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

describe('compliance profiles', () => {
  it('creates (201), reads, lists and patches a profile; PATCH bumps revision', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const res = await api('POST', '/v1/compliance-profiles', { body: profileBody() });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cpr_/),
      ...profileBody(),
      revision: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await api('GET', `/v1/compliance-profiles/${res.body.id}`)).body).toEqual(res.body);
    const listed = (await api('GET', '/v1/compliance-profiles')).body;
    expect(listed).toEqual({ data: [res.body], next_cursor: null, has_more: false });
    const patched = await api('PATCH', `/v1/compliance-profiles/${res.body.id}`, { body: { seller_name: 'Acme Solar Inc.', calling_window: null } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      seller_name: 'Acme Solar Inc.',
      calling_window: null,
      revision: 2,
      name: 'Outbound sales (US)',
      created_at: res.body.created_at,
    });
    const noWindow = await api('POST', '/v1/compliance-profiles', { body: profileBody({ calling_window: undefined, call_purpose: 'informational' }) });
    expect(noWindow.body.calling_window).toBeNull();
  });

  it('refuses every broken rule with its loc, including a window wider than 08:00–21:00', async () => {
    const api = client(stack, (await newTenant()).token);
    const bad = await api('POST', '/v1/compliance-profiles', {
      body: {
        name: '',
        call_purpose: 'sales',
        subject: 'Product Offers',
        seller_name: 'x'.repeat(201),
        calling_window: { start: '7:00', end: '20:00' },
        extra: 1,
      },
    });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual([
      'body.call_purpose:enum',
      'body.calling_window.start:string_pattern_mismatch',
      'body.extra:extra_forbidden',
      'body.name:string_too_short',
      'body.seller_name:string_too_long',
      'body.subject:string_pattern_mismatch',
    ]);
    expect(locs((await api('POST', '/v1/compliance-profiles', { body: {} })).body)).toEqual([
      'body.call_purpose:missing',
      'body.name:missing',
      'body.seller_name:missing',
      'body.subject:missing',
    ]);
    const early = await api('POST', '/v1/compliance-profiles', { body: profileBody({ calling_window: { start: '07:30', end: '21:30' } }) });
    expect(locs(early.body)).toEqual(['body.calling_window.end:calling_window_too_wide', 'body.calling_window.start:calling_window_too_wide']);
    const inverted = await api('POST', '/v1/compliance-profiles', { body: profileBody({ calling_window: { start: '18:00', end: '09:00' } }) });
    expect(locs(inverted.body)).toEqual(['body.calling_window:calling_window_empty']);
    expect((await api('POST', '/v1/compliance-profiles', { body: profileBody({ calling_window: { start: '08:00', end: '21:00' } }) })).status).toBe(201);
    const created = (await api('POST', '/v1/compliance-profiles', { body: profileBody() })).body;
    const widen = await api('PATCH', `/v1/compliance-profiles/${created.id}`, {
      body: { calling_window: { start: '06:00', end: '20:00' }, subject: 'a'.repeat(101) },
    });
    expect(locs(widen.body)).toEqual(['body.calling_window.start:calling_window_too_wide', 'body.subject:string_too_long']);
    expect((await api('GET', `/v1/compliance-profiles/${created.id}`)).body).toEqual(created);
  });

  it('name is at most 100 characters, on create and PATCH (100 is accepted)', async () => {
    const api = client(stack, (await newTenant()).token);
    const long = await api('POST', '/v1/compliance-profiles', { body: profileBody({ name: 'n'.repeat(101) }) });
    expect(long.status).toBe(422);
    expect(long.body.detail).toMatchObject([{ loc: ['body', 'name'], type: 'string_too_long' }]);
    expect((await api('GET', '/v1/compliance-profiles')).body.data).toEqual([]);
    const created = await api('POST', '/v1/compliance-profiles', { body: profileBody({ name: 'n'.repeat(100) }) });
    expect(created.status).toBe(201);
    const patch = await api('PATCH', `/v1/compliance-profiles/${created.body.id}`, { body: { name: 'm'.repeat(101) } });
    expect(patch.body.detail).toMatchObject([{ loc: ['body', 'name'], type: 'string_too_long' }]);
    expect((await api('GET', `/v1/compliance-profiles/${created.body.id}`)).body).toEqual(created.body);
  });

  it('lets only admins and managers write; members read', async () => {
    const t = await newTenant();
    const member = client(stack, (await createApiKey({ tenantId: t.tenantId, name: 'm', role: 'member' })).api_key.secret);
    const manager = client(stack, (await createApiKey({ tenantId: t.tenantId, name: 'g', role: 'manager' })).api_key.secret);
    expect((await member('POST', '/v1/compliance-profiles', { body: profileBody() })).status).toBe(403);
    const made = await manager('POST', '/v1/compliance-profiles', { body: profileBody() });
    expect(made.status).toBe(201);
    expect((await member('PATCH', `/v1/compliance-profiles/${made.body.id}`, { body: { name: 'n' } })).status).toBe(403);
    expect((await member('GET', `/v1/compliance-profiles/${made.body.id}`)).status).toBe(200);
    expect((await manager('PATCH', `/v1/compliance-profiles/${made.body.id}`, { body: { name: 'n' } })).status).toBe(200);
  });

  it("answers 404 for another tenant's profile, a missing one and a malformed id, on GET and PATCH", async () => {
    const owner = client(stack, (await newTenant()).token);
    const other = client(stack, (await newTenant()).token);
    const id = (await owner('POST', '/v1/compliance-profiles', { body: profileBody() })).body.id;
    for (const path of [id, 'cpr_01JZZZZZZZZZZZZZZZZZZZZZZZ', 'cpr_%23x']) {
      expect((await other('GET', `/v1/compliance-profiles/${path}`)).status).toBe(404);
      expect((await other('PATCH', `/v1/compliance-profiles/${path}`, { body: { name: 'mine' } })).status).toBe(404);
    }
    expect((await owner('GET', `/v1/compliance-profiles/${id}`)).body.name).toBe('Outbound sales (US)');
  });
});
