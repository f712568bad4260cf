/**
 * Builds the OpenAPI 3.1 document from the route manifest and each handler's zod
 * schemas (attached to the handler by the route factory). Nothing here is written by
 * hand per endpoint, so the document cannot drift from the code.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import type { ListRouteSchemas } from '../../shared/http/list-route.js';
import type { HttpHandler, RouteSchemas } from '../../shared/http/route.js';
import { FILTER_LIMITS, type FilterSpec } from '../../shared/pagination/filters.js';
import { PAGE_BYTE_BUDGET } from '../../shared/pagination/page.js';
import { ROLES } from '../../shared/policy/auth/roles.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { errorSchema, validationErrorSchema } from '../../shared/schemas/common.js';

const SECURITY_SCHEME = {
  bearer: 'bearerAuth',
  sandbox_basic: 'sandboxBasic',
  twilio_signature: 'twilioSignature',
  stream_token: 'streamToken',
  session: 'sessionCookie',
  stripe_signature: 'stripeSignature',
} as const;

type Json = Record<string, unknown>;

const root = resolve(import.meta.dirname, '..', '..');

/** A list route's schemas carry its filters (shared/http/list-route.ts); any other route's carry none. */
type DocumentedHandler = HttpHandler & { schemas: RouteSchemas & Partial<Pick<ListRouteSchemas, 'filters'>> };

export async function loadHandler(route: RouteDefinition): Promise<DocumentedHandler> {
  const mod = (await import(pathToFileURL(resolve(root, `${route.handler}.ts`)).href)) as { handler?: DocumentedHandler };
  if (!mod.handler) throw new Error(`${route.handler} exports no handler`);
  return mod.handler;
}

export async function buildOpenApi(): Promise<Json> {
  // What a schema accepts (input) and what it sends (output) can differ (defaults make a
  // field optional on the way in, required on the way out): each io gets its own components,
  // merged at the end where they agree.
  const components: Record<'input' | 'output', Record<string, Json>> = { input: {}, output: {} };
  const convert = (schema: z.ZodType, io: 'input' | 'output'): Json => {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' }) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    delete json.$schema;
    for (const [name, def] of Object.entries(defs)) components[io][name] = rewriteRefs(def, io) as Json;
    // A schema that is itself a named component becomes a reference to it.
    const id = (json.id as string | undefined) ?? undefined;
    if (id) {
      delete json.id;
      components[io][id] = rewriteRefs(json, io) as Json;
      return { $ref: `${REF_PREFIX[io]}${id}` };
    }
    return rewriteRefs(json, io) as Json;
  };

  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes as readonly RouteDefinition[]) {
    const { schemas } = await loadHandler(route);
    const parameters: Json[] = [];
    const addParams = (where: 'path' | 'query' | 'header', schema: z.ZodType | undefined) => {
      if (!schema) return;
      const json = convert(schema, 'input');
      const props = (json.properties ?? {}) as Record<string, Json>;
      const required = new Set((json.required as string[] | undefined) ?? []);
      for (const [name, s] of Object.entries(props)) {
        parameters.push({ name, in: where, required: where === 'path' || (where === 'header' && required.has(name)), schema: s });
      }
    };
    addParams('path', schemas.path);
    addParams('query', schemas.query);
    addParams('query', schemas.callbackQuery);
    for (const [field, spec] of Object.entries(schemas.filters ?? {})) {
      const limits = `Repeated values count once; at most ${FILTER_LIMITS.valuesPerFilter} distinct values of at most ${FILTER_LIMITS.valueChars} characters, ${FILTER_LIMITS.filtersPerQuery} filter parameters and ${FILTER_LIMITS.valuesPerQuery} values per query.`;
      const oneOf = spec.kind === 'enum' ? ` One of: ${spec.values.join(', ')}.` : '';
      parameters.push({
        name: field,
        in: 'query',
        required: false,
        description: `Filter: equals; comma-separated values are OR (${spec.kind}${spec.list ? ' list: contains any' : ''}).${oneOf} ${limits}`,
        schema: filterValueSchema(spec, 'list'),
      });
      parameters.push({
        name: `${field}.in`,
        in: 'query',
        required: false,
        description: `Filter: the same as \`${field}\` (comma-separated values are OR).`,
        schema: filterValueSchema(spec, 'list'),
      });
      if (spec.kind === 'boolean' || spec.list) continue;
      for (const op of ['gte', 'lte', 'gt', 'lt']) {
        parameters.push({
          name: `${field}.${op}`,
          in: 'query',
          required: false,
          description: `Filter: ${field} ${OP_WORDS[op]} the value (one value).`,
          schema: filterValueSchema(spec, 'one'),
        });
      }
    }
    if (route.idempotency !== 'none') {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: route.idempotency === 'required',
        description: 'Replays the original result for 24 hours (header Idempotent-Replay: true on a replay).',
        schema: { type: 'string', minLength: 1, maxLength: 255, examples: ['5f0c6a8e-3b8f-4f6a-9f55-3c1d0f0b7a11'] },
      });
    }
    addParams('header', schemas.headers);

    const responses: Record<string, Json> = {};
    for (const [status, schema] of Object.entries(schemas.responses)) {
      const code = Number(status);
      // 204 and 304 carry no body (RFC 9110): no content, whatever placeholder schema the handler names.
      if (code === 204 || code === 304) {
        responses[status] = { description: code === 204 ? 'Success: no content' : 'Not modified' };
        continue;
      }
      const mediaType = code < 300 ? (schemas.successMediaType ?? 'application/json') : 'application/json';
      responses[status] = { description: code < 300 ? 'Success' : 'Error', content: { [mediaType]: { schema: convert(schema, 'output') } } };
    }
    const errorRef = convert(errorSchema, 'output');
    const takesInput = Boolean(schemas.path || schemas.query || schemas.body || schemas.filters || route.idempotency !== 'none');
    if (takesInput)
      responses['422'] = { description: 'Validation error', content: { 'application/json': { schema: convert(validationErrorSchema, 'output') } } };
    if (schemas.body)
      responses['415'] =
        route.bodyFormat === 'form'
          ? {
              description: 'The body is not a form: send Content-Type application/x-www-form-urlencoded',
              content: { 'application/json': { schema: errorRef } },
            }
          : {
              description: 'The body is not JSON: send Content-Type application/json (charset utf-8 if any) or a +json type',
              content: { 'application/json': { schema: errorRef } },
            };
    if (schemas.body)
      responses['413'] = { description: 'The body is over the payload limit; nothing was read', content: { 'application/json': { schema: errorRef } } };
    if (route.auth === 'stripe_signature')
      responses['400'] = {
        description: 'Missing, wrong or stale Stripe-Signature; nothing was written',
        content: { 'application/json': { schema: errorRef } },
      };
    if (route.auth === 'twilio_signature')
      responses['403'] = { description: 'Missing or wrong X-Twilio-Signature; nothing was written', content: { 'application/json': { schema: errorRef } } };
    if (route.auth === 'stream_token') {
      responses['401'] = {
        description: 'No call token (Authorization: Bearer <Stream token>); nothing was written',
        content: { 'application/json': { schema: errorRef } },
      };
      responses['403'] = {
        description: "A token that is not this call's valid Stream token (wrong signature, expired, another call's, or a tenant API key); nothing was written",
        content: { 'application/json': { schema: errorRef } },
      };
    }
    if (route.auth === 'session')
      responses['401'] = {
        ...(responses['401'] ?? { content: { 'application/json': { schema: errorRef } } }),
        description: 'Missing, expired or revoked session cookie, or an Authorization header (cookie routes take no API key)',
      };
    // Sign-in and the emailed-proof confirm take no credential header either: an Authorization header is a 401 there too.
    if (route.auth === 'dashboard_origin' || route.auth === 'portal_origin') {
      const headerNote = 'an Authorization header (these routes take no API key); nothing was read or spent';
      responses['401'] = responses['401']
        ? { ...responses['401'], description: `Wrong credentials, or ${headerNote}` }
        : { description: headerNote[0]!.toUpperCase() + headerNote.slice(1), content: { 'application/json': { schema: errorRef } } };
    }
    // Origin (CSRF) refusals: every method of the origin-checked sign-in and confirm routes, only state-changing methods of cookie routes.
    const forbidden: string[] = [];
    // A route every role may call refuses none: its 403 would describe nothing.
    if (route.roles && route.roles.length < ROLES.length)
      forbidden.push(`Requires role ${route.roles.join(' or ')}: any other role is refused before anything is read or written`);
    if (route.auth === 'portal_origin') forbidden.push('Origin is not the portal; nothing was read or spent');
    if (route.auth === 'dashboard_origin' || (route.auth === 'session' && route.method !== 'GET'))
      forbidden.push(`${forbidden.length ? 'a' : 'A'} state-changing request whose Origin is not the dashboard (CSRF)`);
    if (route.auth === 'bearer') responses['401'] = { description: 'Missing or invalid credential', content: { 'application/json': { schema: errorRef } } };
    if (forbidden.length)
      responses['403'] = { ...(responses['403'] ?? { content: { 'application/json': { schema: errorRef } } }), description: forbidden.join('; or ') };
    if (route.path.includes('{'))
      responses['404'] ??= { description: "Not found (including another tenant's id)", content: { 'application/json': { schema: errorRef } } };
    if (route.idempotency !== 'none')
      responses['409'] ??= {
        description: 'A request with this Idempotency-Key is still in progress; or the change conflicts with the current state (the code says which)',
        content: { 'application/json': { schema: errorRef } },
      };
    // Any state change may meet a state that refuses it (a revision, a status, a duplicate): the error's code names which.
    if (route.method !== 'GET')
      responses['409'] ??= {
        description: 'The change conflicts with the current state (the code says which); nothing was changed',
        content: { 'application/json': { schema: errorRef } },
      };
    responses['500'] = { description: 'Internal error (body carries a request id, nothing internal)', content: { 'application/json': { schema: errorRef } } };
    responses['5XX'] = {
      description:
        'A provider this request needs (carrier, calendar, payments) could not be reached or answered with an error (502, 503; the code says which); nothing was changed',
      content: { 'application/json': { schema: errorRef } },
    };

    const pageNote =
      schemas.filters || schemas.query?.safeParse({}).data?.limit !== undefined
        ? `A page ends early (has_more true, with a cursor) before its items pass ${PAGE_BYTE_BUDGET} bytes of JSON.`
        : undefined;
    const roleNote = !route.roles
      ? undefined
      : route.roles.length < ROLES.length
        ? `Roles allowed: ${route.roles.join(', ')} (\`x-roles\`); any other role is 403 before anything is read or written.`
        : `Roles allowed: every role (${route.roles.join(', ')}; \`x-roles\`).`;
    const description = [schemas.description ?? route.summary, pageNote, roleNote].filter(Boolean).join('\n\n');
    const op: Json = {
      operationId: route.id,
      summary: route.summary,
      tags: [route.tag],
      description,
      ...(route.deprecated ? { deprecated: true } : {}),
      ...(route.roles ? { 'x-roles': [...route.roles] } : {}),
      security: route.auth === 'none' || route.auth === 'dashboard_origin' || route.auth === 'portal_origin' ? [] : [{ [SECURITY_SCHEME[route.auth]]: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(schemas.body
        ? {
            requestBody: {
              required: true,
              content: { [route.bodyFormat === 'form' ? 'application/x-www-form-urlencoded' : 'application/json']: { schema: convert(schemas.body, 'input') } },
            },
          }
        : {}),
      responses,
    };
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = op;
  }

  const schemasOut = mergeComponents(components);
  const doc: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Voice Agent Control API',
      version: '0.1.0',
      description:
        'The multi-tenant control plane for AI voice agents: contacts, consent and compliance, agents and their published versions, calls and campaigns, telephony, messaging, calendars, billing, and the callbacks the carrier and the voice runtime make. Every error body is JSON; validation errors are 422 {detail:[{loc,msg,type}]}.',
      contact: { name: 'Voice Agent Control API maintainers' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:3000' } } }],
    tags: [...new Set((routes as readonly RouteDefinition[]).map((r) => r.tag))].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key: vak_<tenant_id>.<key_id>.<secret>' },
        sandboxBasic: { type: 'http', scheme: 'basic', description: 'The sandbox carrier, as Twilio: a sandbox account SID and its auth token' },
        twilioSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Twilio-Signature',
          description: "Carrier callbacks: Twilio's request signature under the auth token of the account that owns the called number",
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: '__Host-vac_session',
          description:
            'The dashboard session (POST /v1/sessions): Secure, HttpOnly, SameSite=Strict; state-changing requests also need Origin = the dashboard origin',
        },
        stripeSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Stripe-Signature',
          description:
            'The payment provider\'s webhooks, signed as Stripe signs them: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body"> under the webhook endpoint\'s secret (whsec_…)',
        },
        streamToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The voice runtime: the signed Stream token our TwiML handed to the carrier (<Connect><Stream><Parameter name="token">), valid for that one call until it expires (STREAM_TOKEN_TTL_SECONDS, 4 h by default)',
        },
      },
      schemas: schemasOut.schemas,
    },
  };
  return resolveRefs(doc, schemasOut.names) as Json;
}

// Placeholders until the components are merged: an input schema and an output schema of one name may differ.
const REF_PREFIX = { input: '#/components/schemas/~input/', output: '#/components/schemas/~output/' } as const;

function rewriteRefs(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, io));
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, REF_PREFIX[io]) : rewriteRefs(v, io);
    }
    return out;
  }
  return node;
}

/**
 * One component per name where input and output agree; where they differ the output keeps
 * the name and the input is `<Name>Input` (what a client may send, e.g. defaults left out).
 */
function mergeComponents(components: Record<'input' | 'output', Record<string, Json>>): {
  schemas: Record<string, Json>;
  names: Record<'input' | 'output', Record<string, string>>;
} {
  const names: Record<'input' | 'output', Record<string, string>> = { input: {}, output: {} };
  const schemas: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(components.output)) {
    names.output[name] = name;
    schemas[name] = schema;
  }
  for (const [name, schema] of Object.entries(components.input)) {
    const out = components.output[name];
    const same =
      out && JSON.stringify(resolveRefs(out, { input: {}, output: {} }, true)) === JSON.stringify(resolveRefs(schema, { input: {}, output: {} }, true));
    const target = !out || same ? name : `${name}Input`;
    names.input[name] = target;
    schemas[target] ??= schema;
  }
  // An input component that only refers to components whose input differs must differ too: settle by fixpoint.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, target] of Object.entries(names.input)) {
      if (target !== name || !components.output[name]) continue;
      const refs = refsOf(components.input[name]);
      if (refs.some((r) => names.input[r] !== undefined && names.input[r] !== r)) {
        names.input[name] = `${name}Input`;
        schemas[`${name}Input`] = components.input[name]!;
        changed = true;
      }
    }
  }
  return { schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))), names };
}

function refsOf(node: unknown, into: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refsOf(n, into);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(REF_PREFIX.input)) into.push(v.slice(REF_PREFIX.input.length));
      else refsOf(v, into);
    }
  }
  return into;
}

/** Placeholder references → final component names (`plain`: both ios to the bare name, for comparing). */
function resolveRefs(node: unknown, names: Record<'input' | 'output', Record<string, string>>, plain = false): unknown {
  if (Array.isArray(node)) return node.map((n) => resolveRefs(n, names, plain));
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string') {
        const io = v.startsWith(REF_PREFIX.input) ? 'input' : v.startsWith(REF_PREFIX.output) ? 'output' : undefined;
        const name = io ? v.slice(REF_PREFIX[io].length) : undefined;
        out[k] = io && name ? `#/components/schemas/${plain ? name : (names[io][name] ?? name)}` : v;
      } else out[k] = resolveRefs(v, names, plain);
    }
    return out;
  }
  return node;
}

const OP_WORDS: Record<string, string> = { gte: 'at or after / at least', lte: 'at or before / at most', gt: 'after / more than', lt: 'before / less than' };

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A filter parameter's schema: a string whose values (comma-separated OR for `list`, one
 * otherwise; blanks around a value are trimmed, as the server trims them) match the kind.
 * A pattern, not an enum: `?state=completed,busy` is one valid string.
 */
function filterValueSchema(spec: FilterSpec[string], arity: 'list' | 'one'): Json {
  const value =
    spec.kind === 'enum'
      ? `(?:${spec.values.map(escapeRegex).join('|')})`
      : spec.kind === 'boolean'
        ? '(?:true|false)'
        : spec.kind === 'integer'
          ? '-?\\d{1,15}'
          : undefined;
  if (!value)
    return { type: 'string', minLength: 1, ...(spec.kind === 'datetime' ? { description: 'ISO 8601 date-time with a zone, or a date (midnight UTC)' } : {}) };
  const one = `\\s*${value}\\s*`;
  return { type: 'string', pattern: arity === 'list' ? `^${one}(?:,${one})*$` : `^${one}$` };
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  'Account deletion': 'Request, confirm or cancel the deletion of the whole account (dashboard session)',
  Agents: 'Agents, their drafts and published immutable versions',
  Billing: 'Plans, the usage estimate, invoices and receptionist purchases',
  Calendar: 'Free slots of a connected calendar',
  Calls: 'Queue, preflight, follow and read calls',
  Campaigns: 'Number pools and campaigns: create, start, pause, resume, cancel, outcomes',
  'Carrier callbacks': "The carrier's signed webhooks (Twilio form posts): answer calls, status, recordings, texts",
  Compliance: 'Compliance profiles, consent, suppressions and do-not-call',
  Contacts: 'Contacts and CSV imports',
  Dashboard: 'Dashboard sign-in and sessions (cookie)',
  Identity: 'API keys, users and the tenant',
  Integrations: 'Calendar connections (Google OAuth, sandbox calendar)',
  Messages: 'Send and read texts',
  Mobile: "The receptionist's mobile surfaces: activity, handoffs and their booking",
  Operations: 'Health and service information',
  'Sandbox carrier': 'The offline carrier that plays Twilio for sandbox accounts',
  Sandbox: 'Offline stand-ins for third parties (Google) and sandbox tools',
  Surveys: 'Survey responses recorded on calls',
  Telephony: 'Telephony accounts, phone numbers and their answering policies',
  'Voice runtime': 'What the voice runtime reports and asks during a call (Stream token)',
  Webhooks: 'The webhook endpoint, its secrets, the event ledger and redelivery',
  Withdrawn: 'Routes kept only to answer that they are gone',
};

export const stringify = (doc: Json): string => `${JSON.stringify(doc, null, 2)}\n`;
