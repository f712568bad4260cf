/**
 * What is stored is what was validated, over the local stack: text fields refuse control
 * and bidi override characters at their field (webhook URL, agent and seller names, a CSV
 * import's cells, list filters) and a trimmed field is stored trimmed; list cursors are
 * opaque (no key, phone number or tenant readable in any of them).
 */
import { describe, expect, it } from 'vitest';
import { loadHandler } from '../../infra/openapi/build.js';
import { routes } from '../../shared/routes.js';
import { useTestStack } from '../support/stack.js';
import { locs, profileBody } from './agent-fixtures.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });
const CONTROL = 'value_error.control_character';
const consent = {
  consent_basis: 'pec',
  captured_at: '2026-10-01T12:00:00Z',
  scope: { purposes: ['reminders'] },
  evidence: { artifact_type: 'web_form', artifact_ref: 'https://acme.test/f/1', content_hash: 'b'.repeat(64) },
};

async function tenant() {
  const t = await newTenant();
  return { ...t, api: client(stack, t.token) };
}

describe('control and bidi override characters are a 422 at the field; nothing stored', () => {
  it('the webhook endpoint URL: refused with controls inside, stored trimmed otherwise', async () => {
    const prev = process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP;
    process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'true';
    try {
      const { api } = await tenant();
      const bad = await api('PUT', '/v1/webhook-endpoint', { body: { url: '\t http://127.0.0.1:9/x\n\u0000' } });
      expect(bad.status).toBe(422);
      expect(locs(bad.body)).toEqual([`body.url:${CONTROL}`]);
      expect((await api('GET', '/v1/webhook-endpoint')).status).toBe(404);
      const put = await api('PUT', '/v1/webhook-endpoint', { body: { url: '  http://127.0.0.1:9/x  ' } });
      expect(put.status).toBe(201);
      expect(put.body.url).toBe('http://127.0.0.1:9/x');
      expect((await api('GET', '/v1/webhook-endpoint')).body.url).toBe('http://127.0.0.1:9/x');
    } finally {
      if (prev === undefined) delete process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP;
      else process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = prev;
    }
  });

  it('a compliance profile seller_name or name with NUL, BEL or a right-to-left override', async () => {
    const { api } = await tenant();
    for (const [field, value] of [
      ['seller_name', 'Acme\u0000\u0007'],
      ['name', 'Sales \u202eSU'],
      ['seller_name', 'Acme\u2066Corp'],
    ] as const) {
      const res = await api('POST', '/v1/compliance-profiles', { body: profileBody({ [field]: value }) });
      expect(res.status, `${field} ${JSON.stringify(value)}`).toBe(422);
      expect(locs(res.body)).toEqual([`body.${field}:${CONTROL}`]);
    }
    expect((await api('GET', '/v1/compliance-profiles')).body.data).toEqual([]);
  });

  it('an agent name and its disclosure business_name', async () => {
    const { api } = await tenant();
    const profile = (await api('POST', '/v1/compliance-profiles', { body: profileBody() })).body;
    const body = (over: Record<string, unknown>) => ({
      name: 'Solar SDR',
      disclosure_config: { business_name: 'Acme Solar' },
      compliance_profile_id: profile.id,
      ...over,
    });
    const badName = await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', { body: body({ name: 'SDR\u0000' }) });
    expect(badName.status).toBe(422);
    expect(locs(badName.body)).toEqual([`body.name:${CONTROL}`]);
    const badBusiness = await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
      body: body({ disclosure_config: { business_name: 'Acme\u202eSolar' } }),
    });
    expect(badBusiness.status).toBe(422);
    expect(locs(badBusiness.body)).toEqual([`body.disclosure_config.business_name:${CONTROL}`]);
    expect((await api('GET', '/v1/agents')).body.data).toEqual([]);
  });

  it("a CSV import's first_name 'a\\u0000b' rejects that row and imports the others", async () => {
    const { api } = await tenant();
    const content = 'Phone,First\r\n+14155550181,"a\u0000b"\r\n+14155550182,Bea\r\n';
    const attestation = { signer_name: 'Sam Signer', signer_title: 'Ops', affirmation: 'They opted in.', consent_basis: 'pewc' };
    const res = await api('POST', '/v1/contact-imports', {
      body: {
        file_name: 'a.csv',
        content,
        column_mapping: { Phone: 'phone_e164', First: 'first_name' },
        consent_attestation: attestation,
        list_name: 'L',
        consent_scope: { purposes: ['reminders'] },
      },
    });
    expect(res.status).toBe(202);
    const job = (await api('GET', `/v1/contact-imports/${res.body.id}`)).body;
    expect(job).toMatchObject({ status: 'completed', rows_accepted: 1, rows_rejected: 1 });
    expect(job.errors).toEqual([expect.objectContaining({ row: 1, field: 'first_name', type: CONTROL })]);
    const names = (await api('GET', '/v1/contacts')).body.data.map((c: { first_name: string | null }) => c.first_name);
    expect(names).toEqual(['Bea']);
    // The signer's name is checked as well.
    const badSigner = await api('POST', '/v1/contact-imports', {
      body: {
        file_name: 'a.csv',
        content,
        column_mapping: { Phone: 'phone_e164' },
        consent_attestation: { ...attestation, signer_name: 'Sam\u0007' },
        list_name: 'L2',
        consent_scope: { purposes: ['reminders'] },
      },
    });
    expect(badSigner.status).toBe(422);
    expect(locs(badSigner.body)).toEqual([`body.consent_attestation.signer_name:${CONTROL}`]);
  });

  it('a list filter value with a control character', async () => {
    const { api } = await tenant();
    const res = await api('GET', `/v1/contacts?phone_e164=${encodeURIComponent('+1415555\u00000181')}`);
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([`query.phone_e164:${CONTROL}`]);
  });
});

describe('cursors are opaque', () => {
  it('no cursor of any list shows a key, a phone number, an id or the tenant', async () => {
    const { api, tenantId } = await tenant();
    const phones = ['+14155550191', '+14155550192', '+14155550193'];
    const secrets: string[] = [tenantId, 'TENANT', ...phones, ...phones.map((p) => p.slice(2))];
    for (const p of phones) {
      expect((await api('POST', '/v1/suppressions', { body: { phone_e164: p, reason: 'opt_out' } })).status).toBe(201);
      const contact = await api('POST', '/v1/contacts', { body: { phone_e164: p, first_name: 'Ann', consent } });
      expect([200, 201]).toContain(contact.status);
      secrets.push(contact.body.id);
    }
    for (let i = 0; i < 2; i++) secrets.push((await api('POST', '/v1/api-keys', { body: { name: `k${i}`, role: 'member' } })).body.id);

    const listed: string[] = [];
    for (const route of routes) {
      if (route.method !== 'GET' || route.auth !== 'bearer' || route.path.includes('{') || !route.path.startsWith('/v1/')) continue;
      // Lists only (a page limit or filters, as the document decides): other routes take no `limit`.
      const { schemas } = await loadHandler(route);
      if (!schemas.filters && (schemas.query?.safeParse({}).data as { limit?: number } | undefined)?.limit === undefined) continue;
      const res = await api('GET', `${route.path}?limit=1`);
      if (res.status !== 200 || typeof res.body?.next_cursor !== 'string') continue;
      listed.push(route.path);
      const cursor: string = res.body.next_cursor;
      const bytes = Buffer.from(cursor, 'base64url');
      const views = [cursor, bytes.toString('utf8'), bytes.toString('latin1'), Buffer.from(cursor, 'base64').toString('latin1')];
      for (const s of secrets) for (const v of views) expect(v.includes(s), `${route.path}: '${s}' readable in its cursor`).toBe(false);
      expect(() => JSON.parse(bytes.toString('utf8')), route.path).toThrow();
      // And it still pages.
      expect((await api('GET', `${route.path}?limit=1&cursor=${encodeURIComponent(cursor)}`)).status, route.path).toBe(200);
    }
    expect(listed).toEqual(expect.arrayContaining(['/v1/suppressions', '/v1/contacts', '/v1/api-keys']));
  });
});
