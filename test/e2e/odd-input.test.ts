import { describe, expect, it } from 'vitest';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

describe('odd input is a 422, never a 500', () => {
  it('bodies of every JSON type where an object is expected', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const bodies = ['null', '"str"', '42', '[]', '[{}]', 'true', '{"phone_e164": null, "consent": []}', '{"name": 1e400}', '{"consent": {"scope": "x"}}'];
    for (const raw of bodies) {
      for (const path of ['/v1/contacts', '/v1/api-keys', '/v1/contact-imports']) {
        const r = await api('POST', path, { raw, headers: { 'content-type': 'application/json' } });
        expect(r.status, `${path} ${raw}`).toBe(422);
        expect(r.body.detail.length, `${path} ${raw}`).toBeGreaterThan(0);
        for (const d of r.body.detail) expect(d.loc[0]).toBe('body');
      }
    }
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
  });

  it('query values that repeat, are empty or overflow', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    for (const [q, type] of [
      ['limit=1&limit=2', 'int_parsing'],
      ['cursor=', 'string_too_short'],
      ['limit=99999999999999999999', 'less_than_equal'],
      ['limit=-1', 'greater_than_equal'],
      ['limit=2.5', 'int_parsing'],
    ] as const) {
      const r = await api('GET', `/v1/contacts?${q}`);
      expect(r.status, q).toBe(422);
      expect(r.body.detail[0].type, q).toBe(type);
    }
  });
});
