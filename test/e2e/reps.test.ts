import { describe, expect, it } from 'vitest';
import { setRepStatusAction } from '../../shared/admin/bootstrap.js';
import { useTestStack } from '../support/stack.js';
import { newRep } from './agent-fixtures.js';
import { type ApiResponse, client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

describe('GET /v1/reps', () => {
  it("lists the tenant's reps with status and transfer_enabled, never a number, and filters by status", async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const dana = await newRep(t.tenantId, { name: 'Dana' });
    const off = await newRep(t.tenantId, { name: 'Off', disabled: true });
    const noNumber = await newRep(t.tenantId, { name: 'Desk', number: null });
    await newRep((await newTenant()).tenantId, { name: 'Elsewhere' });
    const res = await api('GET', '/v1/reps');
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { name: string }) => r.name)).toEqual(['Desk', 'Off', 'Dana']);
    expect(res.body.data[2]).toEqual({
      id: dana.id,
      name: 'Dana',
      status: 'active',
      transfer_enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body.data[0]).toMatchObject({ id: noNumber.id, transfer_enabled: false });
    const text = JSON.stringify(res.body);
    for (const n of [dana.number, off.number]) expect(text).not.toContain(n!.slice(1));

    const active = (await api('GET', '/v1/reps?status=active')).body.data.map((r: { id: string }) => r.id);
    expect(active).toEqual([noNumber.id, dana.id]);
    await setRepStatusAction({ tenantId: t.tenantId, repId: off.id, status: 'active' });
    await setRepStatusAction({ tenantId: t.tenantId, repId: dana.id, status: 'disabled' });
    const after = (await api('GET', '/v1/reps?status=disabled')).body.data.map((r: { id: string }) => r.id);
    expect(after).toEqual([dana.id]);
    expect((await api('GET', '/v1/reps?status=gone')).status).toBe(422);
  });

  it('pages: limit 1 over 3 reps walks them newest first with a cursor, each once; a cursor from another filter is refused', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const made = [await newRep(t.tenantId, { name: 'A' }), await newRep(t.tenantId, { name: 'B' }), await newRep(t.tenantId, { name: 'C' })];
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 1; page <= 3; page++) {
      const res: ApiResponse = await api('GET', `/v1/reps?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.has_more).toBe(page < 3);
      expect(res.body.next_cursor === null).toBe(page === 3);
      seen.push(res.body.data[0].id);
      cursor = res.body.next_cursor;
      if (page === 1) {
        const elsewhere = await api('GET', `/v1/reps?limit=1&status=active&cursor=${encodeURIComponent(cursor!)}`);
        expect(elsewhere.status).toBe(422);
        expect(elsewhere.body.detail).toMatchObject([{ loc: ['query', 'cursor'], type: 'cursor_invalid' }]);
      }
    }
    expect(seen).toEqual(made.map((r) => r.id).reverse());
    const other = client(stack, (await newTenant()).token);
    const first = await api('GET', '/v1/reps?limit=1');
    expect((await other('GET', `/v1/reps?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`)).status).toBe(422);
  });
});
