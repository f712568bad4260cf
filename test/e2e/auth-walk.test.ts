import { describe, expect, it } from 'vitest';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

/** A concrete URL for a manifest path: every {param} gets a plausible id. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'xyz_01JZZZZZZZZZZZZZZZZZZZZZZZ');

describe('every authenticated route refuses a missing or bad credential', () => {
  const bearer = (routes as readonly RouteDefinition[]).filter((r) => r.auth === 'bearer');

  it('covers the manifest', () => {
    expect(bearer.length).toBeGreaterThan(5);
  });

  it.each(bearer.map((r) => [r.id, r] as const))('%s → 401 for missing, malformed, unknown, tampered and retired keys', async (_id, route) => {
    const t = await newTenant();
    const retired = (await client(stack, t.token)('POST', '/v1/api-keys', { body: { name: 'soon retired' } })).body;
    await client(stack, t.token)('POST', `/v1/api-keys/${retired.id}/rotate`);
    const [prefix, keyId, secret] = t.token.split('.') as [string, string, string];
    const flipped = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
    const other = await newTenant();
    const credentials = [
      undefined,
      'not-a-key',
      `${prefix}.${keyId}.${flipped}`, // wrong secret
      `${prefix}.key_01JZZZZZZZZZZZZZZZZZZZZZZZ.${secret}`, // unknown key
      `vak_${other.tenantId}.${keyId}.${secret}`, // right key, claimed for another tenant
      retired.secret,
    ];
    for (const credential of credentials) {
      const res = await client(stack, credential)(route.method, concrete(route.path), route.method === 'GET' ? {} : { body: {} });
      expect(res.status, `${route.id} with ${credential ?? 'no credential'}`).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.body).toEqual({ detail: 'Missing or invalid API key', code: 'unauthorized' });
    }
    const basic = await client(stack)(route.method, concrete(route.path), { headers: { authorization: `Basic ${btoa('a:b')}` } });
    expect(basic.status).toBe(401);
    expect(basic.body).toEqual({ detail: 'Missing or invalid API key', code: 'unauthorized' });
  });
});
