import { describe, expect, it } from 'vitest';
import { loadHandler } from '../../infra/openapi/build.js';
import { createUser } from '../../shared/admin/bootstrap.js';
import { PAGE_BYTE_BUDGET } from '../../shared/pagination/page.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { useTestStack } from '../support/stack.js';
import { type ApiResponse, client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

const consent = (scope: unknown = { purposes: ['reminders'] }) => ({
  consent_basis: 'pec',
  captured_at: '2026-10-01T12:00:00Z',
  scope,
  evidence: { artifact_type: 'web_form', artifact_ref: 'https://acme.test/f/1', content_hash: 'b'.repeat(64) },
});
const attestation = { signer_name: 'Sam Signer', signer_title: 'Ops', affirmation: 'They opted in.', consent_basis: 'pec' };

describe('values DynamoDB cannot store faithfully are a 422, not a 500', () => {
  it.each([
    ['an unsafe integer', { attributes: { n: 9007199254740993 } }, ['body', 'attributes', 'n'], 'number_too_large'],
    ['an infinite number', { attributes: { n: 1e400 } }, ['body', 'attributes', 'n'], 'finite_number'],
    [
      'nesting past 8 levels',
      { attributes: JSON.parse(`${'{"a":'.repeat(12)}1${'}'.repeat(12)}`) },
      ['body', 'attributes', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'],
      'json_too_deep',
    ],
    ['an oversized object', { attributes: { x: 'y'.repeat(40 * 1024) } }, ['body', 'attributes'], 'json_too_large'],
    ['an infinite number in the consent scope', { consent: consent({ x: 1e400 }) }, ['body', 'consent', 'scope', 'x'], 'finite_number'],
  ])('%s', async (_name, extra, loc, type) => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const body = JSON.stringify({ phone_e164: '+14155550123', consent: consent(), ...extra })
      .replace('"n":null', '"n":1e400')
      .replace('"x":null', '"x":1e400');
    const res = await api('POST', '/v1/contacts', { raw: body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc, type });
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
  });

  it('an import consent_scope with an infinite number writes nothing', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const raw = JSON.stringify({
      file_name: 'a.csv',
      content: 'Phone\r\n+14155550124\r\n',
      column_mapping: { Phone: 'phone_e164' },
      consent_attestation: attestation,
      list_name: 'New list',
      consent_scope: { x: 0 },
    }).replace('"x":0', '"x":1e400');
    const res = await api('POST', '/v1/contact-imports', { raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'consent_scope', 'x'], type: 'finite_number' });
    expect((await api('GET', '/v1/contact-imports')).body.data).toEqual([]);
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
  });
});

describe('ids that cannot name anything', () => {
  it('a malformed owner_user_id is a 422; a malformed path id is a 404 like a missing one', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const bad = await api('POST', '/v1/contacts', { body: { phone_e164: '+14155550125', owner_user_id: 'a#b', consent: consent() } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'owner_user_id'], type: 'string_pattern_mismatch' });
    for (const [method, path] of [
      ['GET', '/v1/contacts/a%23b'],
      ['GET', '/v1/contacts/a%23b/consents'],
      ['POST', '/v1/api-keys/a%23b/rotate'],
      ['GET', '/v1/contact-imports/a%23b'],
    ] as const) {
      const res = await api(method, path);
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('filter names that are built-in object properties are unknown filters; impossible dates are refused', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    for (const q of ['constructor=x', 'toString=1', 'hasOwnProperty.gte=1', '__proto__=x']) {
      const res = await api('GET', `/v1/contacts?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.detail[0].type, q).toBe('extra_forbidden');
    }
    const feb30 = await api('GET', '/v1/contact-imports?created_at.gte=2026-02-30');
    expect(feb30.status).toBe(422);
    expect(feb30.body.detail[0]).toMatchObject({ loc: ['query', 'created_at.gte'], type: 'datetime_parsing' });
  });
});

describe('imports', () => {
  it("never stores '__proto__' as an attribute key: a 422 names it at any depth, and it is refused as an import target", async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    for (const [attributes, loc] of [
      ['{"__proto__":{"x":1}}', ['body', 'attributes', '__proto__']],
      ['{"a":{"b":[{"__proto__":1}]}}', ['body', 'attributes', 'a', 'b', 0, '__proto__']],
    ] as const) {
      const viaApi = await api('POST', '/v1/contacts', {
        raw: `{"phone_e164":"+14155550126","attributes":${attributes},"consent":${JSON.stringify(consent())}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(viaApi.status).toBe(422);
      expect(viaApi.body.detail[0]).toMatchObject({ loc, type: 'key_reserved' });
    }
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
    const viaImport = await api('POST', '/v1/contact-imports', {
      body: {
        file_name: 'a.csv',
        content: 'Phone,T\r\n+14155550127,x\r\n',
        column_mapping: { Phone: 'phone_e164', T: 'attributes.__proto__' },
        consent_attestation: attestation,
      },
    });
    expect(viaImport.status).toBe(422);
    expect(viaImport.body.detail[0].loc).toEqual(['body', 'column_mapping', 'T']);
  });

  it('rows sharing an owner all import (one transaction never checks the same owner twice)', async () => {
    const t = await newTenant();
    const owner = await createUser({ tenantId: t.tenantId, email: 'owner@acme.test', role: 'member' });
    const api = client(stack, t.token);
    const rows = Array.from({ length: 12 }, (_, i) => `+1415556${String(i).padStart(4, '0')},${i % 3 === 2 ? '' : owner.user_id},v${i}`);
    const res = await api('POST', '/v1/contact-imports', {
      body: {
        file_name: 'owners.csv',
        content: `Phone,Owner,Tier\r\n${rows.join('\r\n')}\r\n`,
        column_mapping: { Phone: 'phone_e164', Owner: 'owner_user_id' },
        consent_attestation: attestation,
      },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'completed', rows_accepted: 12, rows_rejected: 0 });
    const contacts = (await api('GET', `/v1/contacts?owner_user_id=${owner.user_id}`)).body.data;
    expect(contacts).toHaveLength(8);
  });
});

describe('free-form keys are stored exactly or refused by name', () => {
  it('keys named after Object.prototype members round-trip at any depth, in attributes and consent scope', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const attributes = { constructor: 1, toString: { constructor: 'x', valueOf: [{ hasOwnProperty: true }] } };
    const scope = { constructor: { purposes: ['a'] }, isPrototypeOf: 2 };
    const res = await api('POST', '/v1/contacts', { body: { phone_e164: '+14155550140', attributes, consent: consent(scope) } });
    expect(res.status).toBe(200);
    expect((await api('GET', `/v1/contacts/${res.body.id}`)).body.attributes).toEqual(attributes);
    expect((await api('GET', `/v1/contacts/${res.body.id}/consents`)).body.data[0].scope).toEqual(scope);
  });

  it('an empty key is a 422 naming it; nothing is written', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const res = await api('POST', '/v1/contacts', { body: { phone_e164: '+14155550141', attributes: { a: { '': 1 } }, consent: consent() } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'attributes', 'a', ''], type: 'key_empty' });
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
  });

  it.each([['1e-200'], ['5e-324'], ['-1e-131']])("the number %s (below DynamoDB's 1e-130) is a 422, not a 500", async (n) => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const raw = `{"phone_e164":"+14155550142","attributes":{"x":${n}},"consent":${JSON.stringify(consent({ y: 0 })).replace('"y":0', `"y":${n}`)}}`;
    const res = await api('POST', '/v1/contacts', { raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'attributes', 'x'], 'number_too_small'],
      [['body', 'consent', 'scope', 'y'], 'number_too_small'],
    ]);
  });

  it('a lone surrogate anywhere in a body is a 422, never stored as U+FFFD', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const raw = `{"phone_e164":"+14155550143","first_name":"A\\ud800","consent":${JSON.stringify(consent())}}`;
    const res = await api('POST', '/v1/contacts', { raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'first_name'], type: 'string_unicode' });
  });
});

describe("timestamps stay in the contract's format", () => {
  it.each([['9999-12-31T23:59:59-01:00'], ['0000-01-01T00:00:00+01:00']])('captured_at %s is refused', async (at) => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const res = await api('POST', '/v1/contacts', { body: { phone_e164: '+14155550150', consent: { ...consent(), captured_at: at } } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatchObject([{ loc: ['body', 'consent', 'captured_at'], type: 'datetime_out_of_range' }]);
  });

  it('the extremes that stay within 0001-9999 in UTC are accepted and read back in ISO form', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const res = await api('POST', '/v1/contacts', {
      body: { phone_e164: '+14155550151', consent: { ...consent(), captured_at: '0001-01-01T00:00:00Z', expires_at: '9999-12-31T22:59:59-01:00' } },
    });
    expect(res.status).toBe(200);
    const stored = (await api('GET', `/v1/contacts/${res.body.id}/consents`)).body.data[0];
    expect(stored).toMatchObject({ captured_at: '0001-01-01T00:00:00.000Z', expires_at: '9999-12-31T23:59:59.000Z' });
  });

  it('expires_at earlier than captured_at is refused', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const res = await api('POST', '/v1/contacts', {
      body: { phone_e164: '+14155550152', consent: { ...consent(), captured_at: '2026-10-01T12:00:00Z', expires_at: '2026-10-01T13:59:59+02:00' } },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatchObject([{ loc: ['body', 'consent', 'expires_at'], type: 'expires_before_captured' }]);
  });
});

describe('bodies must be JSON', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['no content type', undefined],
    ['JSON in another charset', 'application/json; charset=iso-8859-1'],
  ])('%s → 415 with the error shape, and nothing written', async (_name, contentType) => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const raw = JSON.stringify({ phone_e164: '+14155550160', consent: consent() });
    const res = await api('POST', '/v1/contacts', { raw, headers: contentType ? { 'content-type': contentType } : {} });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
  });

  it('every bearer route that takes a JSON body answers 415 to a text/plain or form body before it reads anything', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const jsonRoutes: RouteDefinition[] = [];
    for (const route of routes as readonly RouteDefinition[]) {
      if (route.auth === 'bearer' && route.bodyFormat !== 'form' && (await loadHandler(route)).schemas.body) jsonRoutes.push(route);
    }
    expect(jsonRoutes.length).toBeGreaterThan(10);
    const path = (p: string) => p.replace(/\{[^}]+\}/g, 'xyz_01JZZZZZZZZZZZZZZZZZZZZZZZ');
    for (const route of jsonRoutes) {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
        const res = await api(route.method, path(route.path), { raw: '{"name":"x"}', headers: { 'content-type': contentType } });
        expect(res.status, `${route.id} with ${contentType}`).toBe(415);
        expect(res.body.code).toBe('unsupported_media_type');
      }
    }
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
  });

  it.each([['application/json; charset=UTF-8'], ['application/vnd.acme+json'], ['application/json; charset=utf8'], ['application/json;charset="UTF8"']])(
    '%s is JSON',
    async (contentType) => {
      const t = await newTenant();
      const api = client(stack, t.token);
      const res = await api('POST', '/v1/contacts', {
        raw: JSON.stringify({ phone_e164: '+14155550161', consent: consent() }),
        headers: { 'content-type': contentType },
      });
      expect(res.status).toBe(200);
    },
  );
});

describe('list pages are bounded in bytes as well as items', () => {
  /** Every page of a list at limit=200: each under the budget (plus the envelope), the ids in order. */
  async function walk(api: ReturnType<typeof client>, path: string) {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const res: ApiResponse = await api('GET', `${path}?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(res.text)).toBeLessThan(PAGE_BYTE_BUDGET + 64 * 1024);
      const page: { data: { id: string }[]; has_more: boolean; next_cursor: string | null } = res.body;
      seen.push(...page.data.map((item) => item.id));
      sizes.push(page.data.length);
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    return { seen, sizes };
  }

  it('a page of large contacts ends early with has_more and a cursor, and the pages together hold every contact once', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const big = { blob: 'x'.repeat(30 * 1024) };
    for (let i = 0; i < 40; i++) {
      const res = await api('POST', '/v1/contacts', { body: { phone_e164: `+1415556${String(i).padStart(4, '0')}`, attributes: big, consent: consent() } });
      expect(res.status).toBe(200);
    }
    const { seen, sizes } = await walk(api, '/v1/contacts');
    expect(sizes.length).toBeGreaterThan(1);
    expect(new Set(seen).size).toBe(40);
    expect(seen).toHaveLength(40);
  });

  it('so does a page of agents with large persona, dialogue_policy and controls (a second list, another partition layout)', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const blob = (n: number) => 'y'.repeat(n);
    // ~75 KB each as JSON: about 13 fit the 1 MiB budget, so 16 cannot share one page of 200.
    const body = {
      disclosure_config: { business_name: 'Acme', notes: blob(7_000) },
      persona: { story: blob(15_000) },
      dialogue_policy: { 'en-US': { script: blob(15_000) }, 'es-US': { script: blob(15_000) }, 'fr-CA': { script: blob(15_000) } },
      conversation_controls: { notes: blob(7_000) },
    };
    const created: string[] = [];
    for (let i = 0; i < 16; i++) {
      const res = await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', { body: { ...body, name: `Agent ${i}` } });
      expect(res.status).toBe(200);
      created.push(res.body.id);
    }
    const { seen, sizes } = await walk(api, '/v1/agents');
    expect(sizes.length).toBeGreaterThan(1);
    expect(sizes[0]).toBeLessThan(16);
    expect([...seen].sort()).toEqual([...created].sort());
  });
});

describe('filters DynamoDB could not evaluate are a 422', () => {
  it('151 distinct values on one filter → 422 at the parameter; 151 repeats of one value → 200', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const distinct = await api(
      'GET',
      `/v1/contacts?phone_e164=${Array.from({ length: 151 }, (_, i) => encodeURIComponent(`+1415557${String(i).padStart(4, '0')}`)).join(',')}`,
    );
    expect(distinct.status).toBe(422);
    expect(distinct.body.detail[0]).toMatchObject({ loc: ['query', 'phone_e164'], type: 'too_long' });
    const repeated = await api('GET', `/v1/contacts?lead_status=${Array(151).fill('new').join(',')}`);
    expect(repeated.status).toBe(200);
  });
});

describe('JSON nested at any depth is a 422, never a 500', () => {
  const deep = (levels: number, open = '[', close = ']') => open.repeat(levels) + close.repeat(levels);
  it.each([
    ['3,000 nested arrays (6 KB)', deep(3000)],
    ['100,000 nested arrays', deep(100_000)],
    ['100,000 nested objects', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
    ['2,500,000 nested arrays (5 MB)', deep(2_500_000)],
  ])('%s: on the unauthenticated sign-in and on an authenticated route, nothing stored', async (_name, raw) => {
    const signIn = await client(stack)('POST', '/v1/sessions', { raw, headers: { 'content-type': 'application/json', origin: stack.baseUrl } });
    expect(signIn.status).toBe(422);
    expect(signIn.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_too_deep' })]);
    const t = await newTenant();
    const api = client(stack, t.token);
    const contact = await api('POST', '/v1/contacts', {
      raw: `{"phone_e164":"+14155550199","attributes":{"x":${raw}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(contact.status).toBe(422);
    expect(contact.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_too_deep' })]);
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
  });

  it('a body over the size limit stays a 413', async () => {
    const res = await client(stack)('POST', '/v1/sessions', { raw: deep(3_500_000), headers: { 'content-type': 'application/json', origin: stack.baseUrl } });
    expect(res.status).toBe(413);
  });
});
