/**
 * Property-based hardening over real HTTP and DynamoDB Local: every free-form object the
 * API stores, filled with arbitrary JSON (keys named after Object.prototype members,
 * `__proto__`, empty keys, lone surrogates, numbers at and past DynamoDB's limits, deep
 * nesting), and arbitrary filter queries on every list. Properties:
 *   accepted ⇒ it reads back equal (canonical JSON: JSON objects are unordered);
 *   refused  ⇒ a 422 whose every loc names a path inside the offending object;
 *   never a 5xx (the e2e client also checks every response against its route's schema).
 */
import { fc, it } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import { routes, type RouteDefinition } from '../../shared/routes.js';
import { loadHandler } from '../../infra/openapi/build.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });
const RUNS = { numRuns: 60 };

// ── generators ───────────────────────────────────────────────────────────────
const oddKeys = fc.constantFrom('constructor', '__proto__', '', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__', ' ', 'a.b', '#', '\u0000', 'é', '😀', '\ud800');
/** Mostly ordinary text, sometimes any UTF-16 (lone surrogates included). */
const text = (maxLength: number) =>
  fc.oneof({ weight: 6, arbitrary: fc.string({ unit: 'grapheme', maxLength }) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) });
const key = fc.oneof({ weight: 2, arbitrary: oddKeys }, { weight: 5, arbitrary: text(12) });
const edgeNumbers = fc.constantFrom(0, -0, 1e-130, -1e-130, 1e-131, 1e-200, 5e-324, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e300, 0.1, 1.7976931348623157e308);
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  edgeNumbers,
  text(20),
);
/** Objects built with Object.fromEntries, so a `__proto__` key is an own property as JSON.parse makes it. */
const { json } = fc.letrec<{ json: unknown; obj: Record<string, unknown> }>((tie) => ({
  json: fc.oneof({ depthSize: 'small', maxDepth: 10 }, scalar, fc.array(tie('json'), { maxLength: 4 }), tie('obj')),
  obj: fc.array(fc.tuple(key, tie('json')), { maxLength: 5 }).map((entries) => Object.fromEntries(entries)),
}));
const freeObject = fc.array(fc.tuple(key, json), { minLength: 0, maxLength: 6 }).map((entries) => Object.fromEntries(entries));

// ── helpers ──────────────────────────────────────────────────────────────────
/** Compact JSON with keys sorted at every level: equal values serialise equally. */
const canonical = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v);
};
/** What the server receives: the generated value as JSON text, parsed as the server parses it. */
const asSent = (v: unknown) => JSON.parse(JSON.stringify(v));

/** Does `loc` (after `root`) name a path inside `value` (or the object itself)? */
function namesPathIn(value: unknown, root: readonly (string | number)[], loc: readonly (string | number)[]): boolean {
  if (loc.length < root.length || root.some((r, i) => loc[i] !== r)) return false;
  let node = value;
  for (const step of loc.slice(root.length)) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node as object, step)) return false;
    node = (node as Record<string | number, unknown>)[step];
  }
  return true;
}

const HASH = 'c'.repeat(64);
const consent = (scope: unknown) => ({
  consent_basis: 'pewc',
  captured_at: '2026-10-01T12:00:00Z',
  scope,
  evidence: { artifact_type: 'web_form', artifact_ref: 'https://acme.test/f', content_hash: HASH },
});
const attestation = { signer_name: 'Sam', signer_title: 'Ops', affirmation: 'They opted in.', consent_basis: 'pewc' };

let api: ReturnType<typeof client>;
let phoneSeq = 0;
const nextPhone = () => `+1646${String(1_000_000 + ++phoneSeq).slice(-7)}`;
const tally: Record<string, { accepted: number; refused: number }> = {};
const count = (what: string, accepted: boolean) => {
  tally[what] ??= { accepted: 0, refused: 0 };
  tally[what][accepted ? 'accepted' : 'refused']++;
};

beforeAll(async () => {
  api = client(stack, (await newTenant('Property')).token);
});

/** Refused ⇒ a 422 naming paths inside the object under `root`. */
function expectNamedRefusal(res: { status: number; body: any }, sent: unknown, root: (string | number)[]) {
  expect(res.status).toBe(422);
  for (const d of res.body.detail) expect(namesPathIn(sent, root, d.loc), `${JSON.stringify(d)} names no path in the object`).toBe(true);
}

describe('free-form objects: stored exactly or refused by path, never a 5xx', () => {
  it.prop([freeObject], RUNS)('contact attributes', async (attributes) => {
    const sent = asSent(attributes);
    const res = await api('POST', '/v1/contacts', { body: { phone_e164: nextPhone(), attributes, consent: consent({ purposes: ['x'] }) } });
    count('attributes', res.status === 200);
    if (res.status !== 200) return expectNamedRefusal(res, sent, ['body', 'attributes']);
    const read = await api('GET', `/v1/contacts/${res.body.id}`);
    expect(canonical(read.body.attributes)).toBe(canonical(sent));
  });

  it.prop([freeObject], RUNS)('consent scope', async (scope) => {
    const sent = asSent(scope);
    const res = await api('POST', '/v1/contacts', { body: { phone_e164: nextPhone(), consent: consent(scope) } });
    count('scope', res.status === 200);
    if (res.status !== 200) return expectNamedRefusal(res, sent, ['body', 'consent', 'scope']);
    const read = await api('GET', `/v1/contacts/${res.body.id}/consents`);
    expect(canonical(read.body.data[0].scope)).toBe(canonical(sent));
  });

  it.prop([freeObject], { numRuns: 30 })("an import's consent_scope", async (scope) => {
    const sent = asSent(scope);
    const phone = nextPhone();
    const res = await api('POST', '/v1/contact-imports', {
      body: { file_name: 'p.csv', content: `Phone\r\n${phone}\r\n`, column_mapping: { Phone: 'phone_e164' }, consent_attestation: attestation, consent_scope: scope },
    });
    count('consent_scope', res.status === 202);
    if (res.status !== 202) return expectNamedRefusal(res, sent, ['body', 'consent_scope']);
    expect(res.body).toMatchObject({ status: 'completed', rows_accepted: 1 });
    const contact = (await api('GET', `/v1/contacts?phone_e164=${encodeURIComponent(phone)}`)).body.data[0];
    const consents = await api('GET', `/v1/contacts/${contact.id}/consents`);
    expect(canonical(consents.body.data[0].scope)).toBe(canonical(sent));
  });

  const header = fc.oneof(oddKeys, fc.string({ unit: 'binary', minLength: 0, maxLength: 10 }));
  it.prop([fc.uniqueArray(fc.tuple(header, key), { minLength: 1, maxLength: 4, selector: ([h]) => h })], { numRuns: 30 })(
    "an import's column_mapping (headers and attributes.<key> targets)",
    async (pairs) => {
      const mapping = Object.fromEntries([['Phone', 'phone_e164'], ...pairs.map(([h, k]) => [h, `attributes.${k}`])]);
      const sent = asSent(mapping);
      const headers = Object.keys(mapping);
      const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
      const phone = nextPhone();
      const cells = headers.map((h) => (h === 'Phone' ? phone : `v-${h.length}`));
      const content = `${headers.map(quote).join(',')}\r\n${cells.map(quote).join(',')}\r\n`;
      const res = await api('POST', '/v1/contact-imports', { body: { file_name: 'm.csv', content, column_mapping: mapping, consent_attestation: attestation } });
      count('column_mapping', res.status === 202);
      if (res.status !== 202) {
        expect(res.status).toBe(422);
        for (const d of res.body.detail) {
          const named = namesPathIn(sent, ['body', 'column_mapping'], d.loc) || d.loc[1] === 'content';
          expect(named, JSON.stringify(d)).toBe(true);
        }
        return;
      }
      expect(canonical(res.body.column_mapping)).toBe(canonical(sent));
      expect(res.body.rows_accepted + res.body.rows_rejected + res.body.rows_skipped).toBe(1);
      expect(res.body.status).toBe('completed');
    },
  );

  it('generated cases included both accepted and refused objects (the properties were exercised)', () => {
    for (const what of ['attributes', 'scope', 'consent_scope', 'column_mapping']) {
      expect(tally[what]?.accepted, `${what} accepted`).toBeGreaterThan(0);
      expect(tally[what]?.refused, `${what} refused`).toBeGreaterThan(0);
    }
  });
});

describe('filter queries on every list: 200 or 422, never a 5xx', () => {
  const lists = (routes as readonly RouteDefinition[]).filter((r) => r.method === 'GET' && r.auth === 'bearer' && !r.path.includes('{'));
  const value = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.constantFrom('new', 'true', 'false', '2026-01-01', '9999-12-31T23:59:59-01:00', '0000-01-01', '+14155550100', 'completed', '', ' ', '1e-200', '-1', '99999999999999999999'),
  );
  const values = fc.array(value, { minLength: 1, maxLength: 220 }).map((vs) => vs.join(','));

  it('lists exist to fuzz', () => {
    expect(lists.map((r) => r.id)).toEqual(expect.arrayContaining(['listContacts', 'listContactImports', 'listUsers', 'listApiKeys']));
  });

  for (const route of lists) {
    it.prop([fc.integer({ min: 0, max: 2 ** 31 })], { numRuns: 25 })(route.id, async (seed) => {
      const filters = Object.keys((await loadHandler(route)).schemas.filters ?? {});
      const names = fc.oneof(
        fc.constantFrom(...(filters.length ? filters : ['x'])).chain((f) => fc.constantFrom(f, `${f}.gte`, `${f}.lte`, `${f}.gt`, `${f}.lt`, `${f}.in`)),
        fc.constantFrom('limit', 'cursor', 'constructor', '__proto__', 'toString.gte', 'a.b.c'),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }),
      );
      const query = fc.sample(fc.array(fc.tuple(names, values), { maxLength: 16 }), { seed, numRuns: 1 })[0]!;
      const params = new URLSearchParams(query);
      const res = await api('GET', `${route.path}?${params}`);
      expect([200, 422], `${route.path}?${params.toString().slice(0, 300)} → ${res.status}`).toContain(res.status);
    });
  }
});
