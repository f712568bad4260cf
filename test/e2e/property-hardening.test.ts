/**
 * Property-based hardening over real HTTP and DynamoDB Local: every free-form object the
 * API stores (contact attributes on create and on an import's update, consent scopes, an
 * import's scope and mapping, the agent's disclosure_config, persona, dialogue_policy and
 * conversation_controls on instantiate and PATCH), filled with arbitrary JSON (keys named
 * after Object.prototype members, `__proto__`, empty keys, lone surrogates, numbers at and
 * past DynamoDB's limits, deep nesting), and arbitrary filter queries on every list (lists
 * under a parent resource included). Properties:
 *   accepted ⇒ it reads back equal (canonical JSON: JSON objects are unordered);
 *   refused  ⇒ a 422 whose every loc names a path inside the offending object;
 *   never a 5xx (the e2e client also checks every response against its route's schema).
 */
import { fc, it } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import { loadHandler } from '../../infra/openapi/build.js';
import { driveCampaign } from '../../shared/campaigns/driver.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';
import { agentNumberWorld } from './inbound-fixtures.js';
import { activeNumber } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });
const RUNS = { numRuns: 60 };

// ── generators ───────────────────────────────────────────────────────────────
const oddKeys = fc.constantFrom(
  'constructor',
  '__proto__',
  '',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  ' ',
  'a.b',
  '#',
  '\u0000',
  'é',
  '😀',
  '\ud800',
);
/** Mostly ordinary text, sometimes any UTF-16 (lone surrogates included). */
const text = (maxLength: number) =>
  fc.oneof({ weight: 6, arbitrary: fc.string({ unit: 'grapheme', maxLength }) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) });
const key = fc.oneof({ weight: 2, arbitrary: oddKeys }, { weight: 5, arbitrary: text(12) });
const edgeNumbers = fc.constantFrom(0, -0, 1e-130, -1e-130, 1e-131, 1e-200, 5e-324, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e300, 0.1, 1.7976931348623157e308);
const scalar = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), edgeNumbers, text(20));
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
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`);
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
const SDR = '/v1/templates/tpl_sdr_outbound/instantiate';
const consent = (scope: unknown) => ({
  consent_basis: 'pewc',
  captured_at: '2026-10-01T12:00:00Z',
  scope,
  evidence: { artifact_type: 'web_form', artifact_ref: 'https://acme.test/f', content_hash: HASH },
});
const attestation = { signer_name: 'Sam', signer_title: 'Ops', affirmation: 'They opted in.', consent_basis: 'pewc' };

let api: ReturnType<typeof client>;
/** A draft agent PATCHed by the agent properties; a contact and a published agent for the nested lists. */
let agentId: string;
const parents: Record<string, string> = {};
/** The client that owns a parent, where it is not the property tenant's (a call comes with its own inbound world). */
const parentApis: Record<string, ReturnType<typeof client>> = {};
let phoneSeq = 0;
const nextPhone = () => `+1646${String(1_000_000 + ++phoneSeq).slice(-7)}`;
const tally: Record<string, { accepted: number; refused: number }> = {};
const count = (what: string, accepted: boolean) => {
  tally[what] ??= { accepted: 0, refused: 0 };
  tally[what][accepted ? 'accepted' : 'refused']++;
};

beforeAll(async () => {
  const tenant = await newTenant('Property');
  api = client(stack, tenant.token);
  agentId = (await api('POST', SDR, { body: { disclosure_config: { business_name: 'Acme' } } })).body.id;
  const profile = (
    await api('POST', '/v1/compliance-profiles', { body: { name: 'P', call_purpose: 'informational', subject: 'reminders', seller_name: 'Acme' } })
  ).body;
  const published = (await api('POST', SDR, { body: { disclosure_config: { business_name: 'Acme' }, compliance_profile_id: profile.id } })).body;
  // Three versions: each publish has new content (an unchanged draft is 409 no_changes).
  for (let i = 0; i < 3; i++) {
    await api('PATCH', `/v1/agents/${published.id}`, { body: { name: `Property v${i + 1}` } });
    expect((await api('POST', `/v1/agents/${published.id}/publish`)).status).toBe(201);
  }
  parents.agent_id = published.id;
  parents.contact_id = (await api('POST', '/v1/contacts', { body: { phone_e164: nextPhone(), consent: consent({ purposes: ['x'] }) } })).body.id;
  // A campaign with rows (its contact scrubbed; the driver run here, as this stack has no scheduler).
  const number = await activeNumber(api, { phone: nextPhone() });
  const list = (
    await api('POST', '/v1/contact-imports', {
      body: {
        file_name: 'p.csv',
        content: `Phone\r\n${nextPhone()}\r\n`,
        column_mapping: { Phone: 'phone_e164' },
        consent_attestation: attestation,
        list_name: 'Property list',
      },
    })
  ).body.target_list_id;
  const pool = (await api('POST', '/v1/number-pools', { body: { name: 'P', phone_number_ids: [number.id] } })).body.id;
  const campaign = (
    await api('POST', '/v1/campaigns', {
      body: { name: 'P', agent_id: published.id, target: { contact_list_id: list }, number_pool_id: pool, telephony_account_id: number.telephony_account_id },
    })
  ).body.id;
  expect((await api('POST', `/v1/campaigns/${campaign}/start`)).status).toBe(200);
  for (let i = 0; i < 5 && (await api('GET', `/v1/campaigns/${campaign}`)).body.status === 'scrubbing'; i++) await driveCampaign(tenant.tenantId, campaign);
  parents.campaign_id = campaign;
  // A call whose runtime reported turns, for its transcript.
  const world = await agentNumberWorld(stack);
  const { call, token } = await world.ring();
  const at = new Date().toISOString();
  const events = [
    { id: 'p-t0', type: 'turn', at, speaker: 'agent', text: 'Hello.' },
    { id: 'p-t1', type: 'turn', at, speaker: 'contact', text: 'Hi.' },
  ];
  expect((await client(stack, token!)('POST', `/runtime/v1/calls/${call.id}/events`, { body: { events } })).status).toBe(200);
  parents.call_id = call.id;
  parentApis.call_id = world.api;
  // A qualification outcome on that call with one fit review, for its review history.
  const qualification = {
    id: 'p-q1',
    type: 'conversation_action',
    at,
    action_id: 'q1',
    kind: 'record_qualification',
    arguments: { answers: { budget: '10k' } },
  };
  expect((await client(stack, token!)('POST', `/runtime/v1/calls/${call.id}/events`, { body: { events: [qualification] } })).status).toBe(200);
  const receipt = Object.keys((await world.api('GET', `/v1/calls/${call.id}`)).body.qualification_reviews)[0]!;
  const review = await world.api('POST', `/v1/workflow-outcomes/${receipt}/fit-reviews`, {
    body: { decision: 'good_fit', reason: 'r', expected_revision: 1 },
    headers: { 'idempotency-key': 'p-review-1' },
  });
  expect(review.status).toBe(200);
  parents.action_id = receipt;
  parentApis.action_id = world.api;
  // A knowledge pack with one published version, for its version list.
  const pack = (await api('POST', '/v1/knowledge-packs', { body: { name: 'FAQ' } })).body;
  expect((await api('POST', `/v1/knowledge-packs/${pack.id}/documents`, { body: { title: 'Hours', content: 'We open at nine.' } })).status).toBe(201);
  expect((await api('POST', `/v1/knowledge-packs/${pack.id}/publish`, { headers: { 'idempotency-key': 'p-pack-1' } })).status).toBe(201);
  parents.pack_id = pack.id;
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

  // Too few random objects are storable scopes for 30 runs to be sure of one: one of each side is always tried.
  it.prop([freeObject], { numRuns: 30, examples: [[{ source: 'web form', purposes: ['x'] }], [{}]] })("an import's consent_scope", async (scope) => {
    const sent = asSent(scope);
    const phone = nextPhone();
    const res = await api('POST', '/v1/contact-imports', {
      body: {
        file_name: 'p.csv',
        content: `Phone\r\n${phone}\r\n`,
        column_mapping: { Phone: 'phone_e164' },
        consent_attestation: attestation,
        consent_scope: scope,
      },
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
      const res = await api('POST', '/v1/contact-imports', {
        body: { file_name: 'm.csv', content, column_mapping: mapping, consent_attestation: attestation },
      });
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

  it.prop(
    [
      freeObject,
      fc.uniqueArray(fc.tuple(header, key), { minLength: 1, maxLength: 4, selector: ([h]) => h }),
      fc.array(fc.stringMatching(/^[A-Za-z0-9é😀._-]{1,12}$/), { minLength: 4, maxLength: 4 }),
    ],
    {
      numRuns: 20,
      examples: [
        [
          { constructor: 1, keep: { a: [1] } },
          [
            ['C', 'constructor'],
            ['K', 'new'],
          ],
          ['x', 'y', 'z', 'w'],
        ],
        [{ a: 1 }, [['P', '__proto__']], ['x', 'y', 'z', 'w']],
      ],
    },
  )("an import's on_duplicate=update merges attributes.<key> cells into a contact's attributes", async (initial, pairs, cells) => {
    const phone = nextPhone();
    const created = await api('POST', '/v1/contacts', { body: { phone_e164: phone, attributes: initial, consent: consent({ purposes: ['x'] }) } });
    if (created.status !== 200) return expectNamedRefusal(created, asSent(initial), ['body', 'attributes']);
    const stored = (await api('GET', `/v1/contacts/${created.body.id}`)).body.attributes;
    const mapping = Object.fromEntries([['Phone', 'phone_e164'], ...pairs.map(([h, k]) => [h, `attributes.${k}`])]);
    const headers = Object.keys(mapping);
    const row = headers.map((h, i) => (h === 'Phone' ? phone : cells[i % cells.length]!));
    const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
    const content = `${headers.map(quote).join(',')}\r\n${row.map(quote).join(',')}\r\n`;
    const res = await api('POST', '/v1/contact-imports', {
      body: { file_name: 'u.csv', content, column_mapping: mapping, consent_attestation: attestation, on_duplicate: 'update' },
    });
    count('attributes_update', res.status === 202 && res.body.rows_accepted === 1);
    const after = (await api('GET', `/v1/contacts/${created.body.id}`)).body.attributes;
    if (res.status !== 202) {
      expect(res.status).toBe(422);
      for (const d of res.body.detail)
        expect(namesPathIn(asSent(mapping), ['body', 'column_mapping'], d.loc) || d.loc[1] === 'content', JSON.stringify(d)).toBe(true);
      expect(canonical(after)).toBe(canonical(stored));
      return;
    }
    expect(res.body.status).toBe('completed');
    expect(res.body.rows_accepted + res.body.rows_rejected + res.body.rows_skipped).toBe(1);
    if (res.body.rows_accepted !== 1) return expect(canonical(after)).toBe(canonical(stored));
    const written = Object.fromEntries(headers.flatMap((h, i) => (h === 'Phone' ? [] : [[mapping[h]!.slice('attributes.'.length), row[i]!]])));
    expect(canonical(after)).toBe(canonical({ ...stored, ...written }));
  });
});

// ── the agent's free-form objects, on instantiate and on PATCH ───────────────
const tags = fc.constantFrom('en-US', 'en-us', 'EN-US', 'es-419', 'fr-CA', 'de', 'he', 'iw', 'not a tag', '', 'x');
const dialoguePolicy = fc.array(fc.tuple(tags, freeObject), { maxLength: 3 }).map((entries) => Object.fromEntries(entries));
const canonicalTag = (tag: string) => Intl.getCanonicalLocales(tag)[0]!;
/** An accepted dialogue_policy reads back keyed by canonical tag; two keys naming one tag can never be accepted (one value would be lost). */
const byCanonicalTag = (sent: Record<string, unknown>) => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sent)) {
    const tag = canonicalTag(k);
    if (Object.hasOwn(out, tag)) return { accepted_a_second_key_for: tag };
    out[tag] = v;
  }
  return out;
};
/** What an accepted agent object reads back as. */
const agentFields = {
  disclosure_config: { arbitrary: freeObject.map((o) => ({ ...o, business_name: 'Acme Solar' })), readBack: (sent: Record<string, unknown>) => sent },
  persona: { arbitrary: freeObject, readBack: (sent: Record<string, unknown>) => sent },
  dialogue_policy: { arbitrary: dialoguePolicy, readBack: byCanonicalTag },
  conversation_controls: { arbitrary: freeObject, readBack: (sent: Record<string, unknown>) => sent },
} as const;
const AGENT_CASES = Object.keys(agentFields).flatMap((f) => [`instantiate ${f}`, `PATCH ${f}`]);

describe("the agent's free-form objects: stored exactly or refused by path, never a 5xx", () => {
  for (const [field, { arbitrary, readBack }] of Object.entries(agentFields)) {
    const examples: [Record<string, unknown>][] =
      field === 'dialogue_policy'
        ? [[{ 'en-US': { constructor: 1 } }], [{ 'en-US': { a: 1 }, 'en-us': { a: 2 } }]]
        : [[{ constructor: { toString: 1 }, business_name: 'Acme Solar' }], [{ '': 1, business_name: 'Acme Solar' }]];
    const check = async (what: string, res: { status: number; body: any }, sent: Record<string, unknown>, read: () => Promise<unknown>) => {
      count(what, res.status === 200);
      if (res.status !== 200) return expectNamedRefusal(res, sent, ['body', field]);
      expect(canonical(await read())).toBe(canonical(readBack(sent)));
    };

    it.prop([arbitrary], { numRuns: 15, examples })(`instantiate: ${field}`, async (value) => {
      const sent = asSent(value);
      const body = field === 'disclosure_config' ? { [field]: value } : { disclosure_config: { business_name: 'Acme' }, [field]: value };
      const res = await api('POST', SDR, { body });
      await check(`instantiate ${field}`, res, sent, async () => (await api('GET', `/v1/agents/${res.body.id}`)).body[field]);
    });

    it.prop([arbitrary], { numRuns: 15, examples })(`PATCH: ${field}`, async (value) => {
      const sent = asSent(value);
      const before = (await api('GET', `/v1/agents/${agentId}`)).body;
      const res = await api('PATCH', `/v1/agents/${agentId}`, { body: { [field]: value } });
      await check(`PATCH ${field}`, res, sent, async () => (await api('GET', `/v1/agents/${agentId}`)).body[field]);
      if (res.status !== 200) expect((await api('GET', `/v1/agents/${agentId}`)).body).toEqual(before);
    });
  }
});

/** A list route: its query takes a page limit, or it declares filters (as the OpenAPI build decides). */
const isList = async (route: RouteDefinition) => {
  const schemas = (await loadHandler(route)).schemas;
  return Boolean(schemas.filters) || (schemas.query?.safeParse({}).data as { limit?: number } | undefined)?.limit !== undefined;
};
const bearerGets = (routes as readonly RouteDefinition[]).filter((r) => r.method === 'GET' && r.auth === 'bearer');
const nestedLists: RouteDefinition[] = [];
const topLists: RouteDefinition[] = [];
for (const r of bearerGets) if (await isList(r)) (r.path.includes('{') ? nestedLists : topLists).push(r);

describe('filter queries on every list: 200 or 422, never a 5xx', () => {
  /** Every bearer list without a path parameter, and every list under a parent resource (made in beforeAll). */
  const lists = [...topLists, ...nestedLists];
  const concrete = (path: string) => path.replace(/\{([^}]+)\}/g, (_m, name: string) => parents[name] ?? `missing-parent-${name}`);
  const value = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.constantFrom(
      'new',
      'true',
      'false',
      '2026-01-01',
      '9999-12-31T23:59:59-01:00',
      '0000-01-01',
      '+14155550100',
      'completed',
      '',
      ' ',
      '1e-200',
      '-1',
      '99999999999999999999',
    ),
  );
  const values = fc.array(value, { minLength: 1, maxLength: 220 }).map((vs) => vs.join(','));

  it('lists exist to fuzz, nested lists included, and each nested list has a parent resource', () => {
    expect(lists.map((r) => r.id)).toEqual(
      expect.arrayContaining(['listContacts', 'listContactImports', 'listUsers', 'listApiKeys', 'listContactConsents', 'listAgentVersions']),
    );
    for (const r of nestedLists)
      for (const [, name] of r.path.matchAll(/\{([^}]+)\}/g)) expect(parents[name!], `${r.id} needs a parent for {${name}} in beforeAll`).toBeDefined();
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
      const owner = Object.keys(parentApis).find((name) => route.path.includes(`{${name}}`));
      const res = await (owner ? parentApis[owner]! : api)('GET', `${concrete(route.path)}?${params}`);
      expect([200, 422], `${route.path}?${params.toString().slice(0, 300)} → ${res.status}`).toContain(res.status);
      // A filter may rightly match nothing; unfiltered, the parent's list is never empty.
      const filtered = [...params.keys()].some((k) => filters.includes(k.split('.')[0]!));
      if (route.path.includes('{') && res.status === 200 && !params.has('cursor') && !filtered)
        expect(res.body.data.length, 'the parent has items to list').toBeGreaterThan(0);
    });
  }
});

describe('the properties were exercised', () => {
  it('generated cases included both accepted and refused objects (the properties were exercised)', () => {
    for (const what of ['attributes', 'scope', 'consent_scope', 'column_mapping', 'attributes_update', ...AGENT_CASES]) {
      expect(tally[what]?.accepted, `${what} accepted`).toBeGreaterThan(0);
      expect(tally[what]?.refused, `${what} refused`).toBeGreaterThan(0);
    }
  });
});
