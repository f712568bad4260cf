/**
 * A tiny API client for e2e tests: JSON in, {status, headers, body} out.
 *
 * Every response it receives is checked against the contract before the test sees it:
 * the manifest route the request matched, the schema that route's handler declares for
 * that status (a success status it does not declare fails), the 422 shape for validation
 * errors and the `{detail, code}` shape for every other error. So a response that breaks
 * its own schema (a timestamp out of ISO form, a missing field) fails whichever test
 * happened to provoke it.
 *
 * The check is strict at every depth (test/support/strict-schema.ts): a key the schema
 * does not declare — a leaked storage key, a field the schema forgot — fails, as the
 * OpenAPI document's `additionalProperties: false` promises. A 5xx fails too, unless the
 * call says it expects one (`allowServerError`).
 *
 * Every exchange is also held to the published document, docs/openapi.json, by a
 * third-party validator (test/support/openapi-contract.ts): the response always, the
 * request when the server accepted it. So the document cannot drift from the server.
 */
import { expect } from 'vitest';
import type * as z from 'zod';
import { loadHandler } from '../../infra/openapi/build.js';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { createRouter } from '../../shared/http/route-matcher.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { errorSchema, validationErrorSchema } from '../../shared/schemas/common.js';
import { documentViolations, type Exchange } from '../support/openapi-contract.js';
import type { TestStack } from '../support/stack.js';
import { strictDeep } from '../support/strict-schema.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  /** The body as received (e.g. to measure its bytes). */
  text: string;
}

export interface CallOptions {
  /** Sent as JSON (Content-Type application/json unless `headers` names one). */
  body?: unknown;
  /** Sent as is. */
  raw?: string;
  /** Sent as application/x-www-form-urlencoded (the carrier-facing sandbox routes). */
  form?: Record<string, string> | string;
  headers?: Record<string, string>;
  /** The test expects a 5xx here; otherwise a 5xx fails the call's contract check. */
  allowServerError?: boolean;
}

const router = createRouter(routes as readonly RouteDefinition[]);
const declared = new Map<string, Promise<Record<number, z.ZodType>>>();
const responsesOf = (route: RouteDefinition) => {
  let found = declared.get(route.id);
  if (!found) {
    found = loadHandler(route).then((h) => h.schemas.responses);
    declared.set(route.id, found);
  }
  return found;
};

/** The schema a response must satisfy, or a reason it has none. */
async function schemaFor(method: string, path: string, status: number): Promise<{ schema: z.ZodType; what: string } | { missing: string }> {
  if (status === 422) return { schema: strictDeep(validationErrorSchema), what: 'the 422 shape' };
  const match = router.match(method, new URL(path, 'http://x').pathname);
  if (match.kind === 'route') {
    const schema = (await responsesOf(match.route))[status];
    if (schema) return { schema: strictDeep(schema), what: `${match.route.id} ${status}` };
    if (status < 400) return { missing: `${match.route.id} answered ${status}, which it does not declare` };
  }
  return { schema: strictDeep(errorSchema), what: 'the error shape' };
}

interface ContractOptions {
  allowServerError?: boolean;
  /** The response's Content-Type (JSON when not given). */
  responseType?: string | null;
  /** What was sent; the document is held to it when the server accepted it. */
  request?: Exchange['request'];
}

/** Fails the calling test when a response breaks the contract. Exported for direct fetches. */
export async function expectContractResponse(method: string, path: string, status: number, body: unknown, opts: ContractOptions = {}): Promise<void> {
  if (status >= 500 && !opts.allowServerError) expect.fail(`${method} ${path} → ${status} (a server error the test does not expect): ${JSON.stringify(body)}`);
  const drift = await documentViolations({
    method,
    path,
    status,
    responseBody: body,
    responseType: opts.responseType === undefined ? 'application/json' : opts.responseType,
    ...(opts.request ? { request: opts.request } : {}),
  });
  if (drift.length) expect.fail(`docs/openapi.json does not describe this exchange:\n${drift.join('\n')}`);
  if (status === 204 && body === undefined) return;
  const found = await schemaFor(method, path, status);
  if ('missing' in found) expect.fail(`${method} ${path}: ${found.missing}`);
  const result = found.schema.safeParse(body);
  if (!result.success) {
    expect.fail(`${method} ${path} → ${status} does not match ${found.what}: ${JSON.stringify(result.error.issues.slice(0, 5))}`);
  }
}

export function client(stack: TestStack, token?: string) {
  return async <T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    if (opts.form !== undefined) {
      body = typeof opts.form === 'string' ? opts.form : new URLSearchParams(opts.form).toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    const res = await stack.fetch(path, { method, headers, body });
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : undefined;
    await expectContractResponse(method, path, res.status, parsed, {
      ...opts,
      responseType: res.headers.get('content-type'),
      request: { headers, body: sentBody(opts, headers) },
    });
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
}

/** The body as the server reads it, for the document's request check: JSON parsed, a form as its fields (the last of a repeated name). */
function sentBody(opts: CallOptions, headers: Record<string, string>): unknown {
  if (opts.body !== undefined) return opts.body;
  if (opts.form !== undefined) return Object.fromEntries(new URLSearchParams(opts.form));
  if (opts.raw === undefined) return undefined;
  const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  if (/form-urlencoded/i.test(type)) return Object.fromEntries(new URLSearchParams(opts.raw));
  try {
    return JSON.parse(opts.raw);
  } catch {
    return opts.raw;
  }
}

/** A fresh tenant with its admin user and admin key, made the way the operator CLI does. */
export async function newTenant(name = 'Acme') {
  const t = await createTenant({ name, adminEmail: `ops+${Math.random().toString(36).slice(2)}@acme.test` });
  return { tenantId: t.tenant_id, userId: t.user_id, keyId: t.api_key.id, token: t.api_key.secret };
}
