/**
 * Builds the OpenAPI 3.1 document from the route manifest and each handler's zod
 * schemas (attached to the handler by the route factory). Nothing here is written by
 * hand per endpoint, so the document cannot drift from the code.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import { routes, type RouteDefinition } from '../../shared/routes.js';
import { ROLES } from '../../shared/auth/roles.js';
import type { HttpHandler, RouteSchemas } from '../../shared/http/route.js';
import { errorSchema, validationErrorSchema } from '../../shared/schemas/common.js';
import { FILTER_LIMITS } from '../../shared/pagination/filters.js';
import { PAGE_BYTE_BUDGET } from '../../shared/pagination/page.js';

const SECURITY_SCHEME = { bearer: 'bearerAuth', sandbox_basic: 'sandboxBasic', twilio_signature: 'twilioSignature', stream_token: 'streamToken', session: 'sessionCookie', stripe_signature: 'stripeSignature' } as const;

type Json = Record<string, unknown>;

const root = resolve(import.meta.dirname, '..', '..');

export async function loadHandler(route: RouteDefinition): Promise<HttpHandler> {
  const mod = (await import(pathToFileURL(resolve(root, `${route.handler}.ts`)).href)) as { handler?: HttpHandler };
  if (!mod.handler) throw new Error(`${route.handler} exports no handler`);
  return mod.handler;
}

export async function buildOpenApi(): Promise<Json> {
  const components: Record<string, Json> = {};
  const convert = (schema: z.ZodType, io: 'input' | 'output'): Json => {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' }) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    delete json.$schema;
    for (const [name, def] of Object.entries(defs)) components[name] = rewriteRefs(def) as Json;
    // A schema that is itself a named component becomes a reference to it.
    const id = (json.id as string | undefined) ?? undefined;
    if (id) {
      delete json.id;
      components[id] = rewriteRefs(json) as Json;
      return { $ref: `#/components/schemas/${id}` };
    }
    return rewriteRefs(json) as Json;
  };

  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes as readonly RouteDefinition[]) {
    const schemas: RouteSchemas = (await loadHandler(route)).schemas;
    const parameters: Json[] = [];
    const addParams = (where: 'path' | 'query' | 'header', schema: z.ZodType | undefined) => {
      if (!schema) return;
      const json = convert(schema, 'output');
      const props = (json.properties ?? {}) as Record<string, Json>;
      const required = new Set((json.required as string[] | undefined) ?? []);
      for (const [name, s] of Object.entries(props)) {
        parameters.push({ name, in: where, required: where === 'path' || (where === 'header' && required.has(name)), schema: s });
      }
    };
    addParams('path', schemas.path);
    addParams('query', schemas.query);
    for (const [field, spec] of Object.entries(schemas.filters ?? {})) {
      const values = spec.kind === 'enum' ? { enum: [...spec.values] } : {};
      parameters.push({ name: field, in: 'query', required: false, description: `Filter: equals; comma-separated values are OR (${spec.kind}). Repeated values count once; at most ${FILTER_LIMITS.valuesPerFilter} distinct values of at most ${FILTER_LIMITS.valueChars} characters, ${FILTER_LIMITS.filtersPerQuery} filter parameters and ${FILTER_LIMITS.valuesPerQuery} values per query.`, schema: { type: 'string', ...values } });
      for (const op of ['gte', 'lte', 'gt', 'lt', 'in']) {
        if (spec.kind === 'boolean' && op !== 'in') continue;
        parameters.push({ name: `${field}.${op}`, in: 'query', required: false, schema: { type: 'string' } });
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
      const mediaType = Number(status) < 300 ? schemas.successMediaType ?? 'application/json' : 'application/json';
      responses[status] = { description: Number(status) < 300 ? 'Success' : 'Error', content: { [mediaType]: { schema: convert(schema, 'output') } } };
    }
    const errorRef = convert(errorSchema, 'output');
    const takesInput = Boolean(schemas.path || schemas.query || schemas.body || schemas.filters || route.idempotency !== 'none');
    if (takesInput) responses['422'] = { description: 'Validation error', content: { 'application/json': { schema: convert(validationErrorSchema, 'output') } } };
    if (schemas.body) responses['415'] = route.bodyFormat === 'form'
      ? { description: 'The body is not a form: send Content-Type application/x-www-form-urlencoded', content: { 'application/json': { schema: errorRef } } }
      : { description: 'The body is not JSON: send Content-Type application/json (charset utf-8 if any) or a +json type', content: { 'application/json': { schema: errorRef } } };
    if (route.auth === 'stripe_signature') responses['400'] = { description: 'Missing, wrong or stale Stripe-Signature; nothing was written', content: { 'application/json': { schema: errorRef } } };
    if (route.auth === 'twilio_signature') responses['403'] = { description: 'Missing or wrong X-Twilio-Signature; nothing was written', content: { 'application/json': { schema: errorRef } } };
    if (route.auth === 'stream_token') {
      responses['401'] = { description: 'No call token (Authorization: Bearer <Stream token>); nothing was written', content: { 'application/json': { schema: errorRef } } };
      responses['403'] = { description: "A token that is not this call's valid Stream token (wrong signature, expired, another call's, or a tenant API key); nothing was written", content: { 'application/json': { schema: errorRef } } };
    }
    if (route.auth === 'session') responses['401'] = { ...(responses['401'] ?? { content: { 'application/json': { schema: errorRef } } }), description: 'Missing, expired or revoked session cookie, or an Authorization header (cookie routes take no API key)' };
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
    if (route.roles && route.roles.length < ROLES.length) forbidden.push(`Requires role ${route.roles.join(' or ')}: any other role is refused before anything is read or written`);
    if (route.auth === 'portal_origin') forbidden.push('Origin is not the portal; nothing was read or spent');
    if (route.auth === 'dashboard_origin' || (route.auth === 'session' && route.method !== 'GET')) forbidden.push(`${forbidden.length ? 'a' : 'A'} state-changing request whose Origin is not the dashboard (CSRF)`);
    if (route.auth === 'bearer') responses['401'] = { description: 'Missing or invalid credential', content: { 'application/json': { schema: errorRef } } };
    if (forbidden.length) responses['403'] = { ...(responses['403'] ?? { content: { 'application/json': { schema: errorRef } } }), description: forbidden.join('; or ') };
    if (route.path.includes('{')) responses['404'] ??= { description: 'Not found (including another tenant\'s id)', content: { 'application/json': { schema: errorRef } } };
    if (route.idempotency !== 'none') responses['409'] ??= { description: 'A request with this Idempotency-Key is still in progress', content: { 'application/json': { schema: errorRef } } };
    responses['500'] = { description: 'Internal error (body carries a request id, nothing internal)', content: { 'application/json': { schema: errorRef } } };

    const pageNote = schemas.filters || schemas.query?.safeParse({}).data?.limit !== undefined
      ? `A page ends early (has_more true, with a cursor) before its items pass ${PAGE_BYTE_BUDGET} bytes of JSON.`
      : undefined;
    const roleNote = !route.roles ? undefined
      : route.roles.length < ROLES.length ? `Roles allowed: ${route.roles.join(', ')} (\`x-roles\`); any other role is 403 before anything is read or written.`
      : `Roles allowed: every role (${route.roles.join(', ')}; \`x-roles\`).`;
    const description = [schemas.description, pageNote, roleNote].filter(Boolean).join('\n\n');
    const op: Json = {
      operationId: route.id,
      summary: route.summary,
      tags: [route.tag],
      ...(description ? { description } : {}),
      ...(route.deprecated ? { deprecated: true } : {}),
      ...(route.roles ? { 'x-roles': [...route.roles] } : {}),
      security: route.auth === 'none' || route.auth === 'dashboard_origin' || route.auth === 'portal_origin' ? [] : [{ [SECURITY_SCHEME[route.auth]]: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(schemas.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: convert(schemas.body, 'input') } } } }
        : {}),
      responses,
    };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = op;
  }

  return {
    openapi: '3.1.0',
    info: { title: 'Voice Agent Control API', version: '0.1.0' },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:3000' } } }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key: vak_<tenant_id>.<key_id>.<secret>' },
        sandboxBasic: { type: 'http', scheme: 'basic', description: 'The sandbox carrier, as Twilio: a sandbox account SID and its auth token' },
        twilioSignature: { type: 'apiKey', in: 'header', name: 'X-Twilio-Signature', description: "Carrier callbacks: Twilio's request signature under the auth token of the account that owns the called number" },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: '__Host-vac_session', description: 'The dashboard session (POST /v1/sessions): Secure, HttpOnly, SameSite=Strict; state-changing requests also need Origin = the dashboard origin' },
        stripeSignature: { type: 'apiKey', in: 'header', name: 'Stripe-Signature', description: "The payment provider's webhooks, signed as Stripe signs them: t=<unix seconds>,v1=<hex HMAC-SHA256 of \"t.body\"> under the webhook endpoint's secret (whsec_…)" },
        streamToken: { type: 'http', scheme: 'bearer', description: "The voice runtime: the signed Stream token our TwiML handed to the carrier (<Connect><Stream><Parameter name=\"token\">), valid for that one call until it expires (STREAM_TOKEN_TTL_SECONDS, 4 h by default)" },
      },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, '#/components/schemas/') : rewriteRefs(v);
    }
    return out;
  }
  return node;
}

export const stringify = (doc: Json): string => `${JSON.stringify(doc, null, 2)}\n`;
