import { describe, expect, it } from 'vitest';
import { createUser } from '../../shared/admin/bootstrap.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';

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
    ['nesting past 8 levels', { attributes: JSON.parse(`${'{"a":'.repeat(12)}1${'}'.repeat(12)}`) }, ['body', 'attributes', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'], 'json_too_deep'],
    ['an oversized object', { attributes: { x: 'y'.repeat(40 * 1024) } }, ['body', 'attributes'], 'json_too_large'],
    ['an infinite number in the consent scope', { consent: consent({ x: 1e400 }) }, ['body', 'consent', 'scope', 'x'], 'finite_number'],
  ])('%s', async (_name, extra, loc, type) => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const body = JSON.stringify({ phone_e164: '+14155550123', consent: consent(), ...extra }).replace('"n":null', '"n":1e400').replace('"x":null', '"x":1e400');
    const res = await api('POST', '/v1/contacts', { raw: body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc, type });
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
  });

  it('an import consent_scope with an infinite number writes nothing', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const raw = JSON.stringify({ file_name: 'a.csv', content: 'Phone\r\n+14155550124\r\n', column_mapping: { Phone: 'phone_e164' }, consent_attestation: attestation, list_name: 'New list', consent_scope: { x: 0 } }).replace('"x":0', '"x":1e400');
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
    for (const [method, path] of [['GET', '/v1/contacts/a%23b'], ['GET', '/v1/contacts/a%23b/consents'], ['POST', '/v1/api-keys/a%23b/rotate'], ['GET', '/v1/contact-imports/a%23b']] as const) {
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
      const viaApi = await api('POST', '/v1/contacts', { raw: `{"phone_e164":"+14155550126","attributes":${attributes},"consent":${JSON.stringify(consent())}}`, headers: { 'content-type': 'application/json' } });
      expect(viaApi.status).toBe(422);
      expect(viaApi.body.detail[0]).toMatchObject({ loc, type: 'key_reserved' });
    }
    expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
    const viaImport = await api('POST', '/v1/contact-imports', { body: { file_name: 'a.csv', content: 'Phone,T\r\n+14155550127,x\r\n', column_mapping: { Phone: 'phone_e164', T: 'attributes.__proto__' }, consent_attestation: attestation } });
    expect(viaImport.status).toBe(422);
    expect(viaImport.body.detail[0].loc).toEqual(['body', 'column_mapping', 'T']);
  });

  it('rows sharing an owner all import (one transaction never checks the same owner twice)', async () => {
    const t = await newTenant();
    const owner = await createUser({ tenantId: t.tenantId, email: 'owner@acme.test', role: 'member' });
    const api = client(stack, t.token);
    const rows = Array.from({ length: 12 }, (_, i) => `+1415556${String(i).padStart(4, '0')},${i % 3 === 2 ? '' : owner.user_id},v${i}`);
    const res = await api('POST', '/v1/contact-imports', {
      body: { file_name: 'owners.csv', content: `Phone,Owner,Tier\r\n${rows.join('\r\n')}\r\n`, column_mapping: { Phone: 'phone_e164', Owner: 'owner_user_id' }, consent_attestation: attestation },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'completed', rows_accepted: 12, rows_rejected: 0 });
    const contacts = (await api('GET', `/v1/contacts?owner_user_id=${owner.user_id}`)).body.data;
    expect(contacts).toHaveLength(8);
  });
});
