/**
 * The published document (docs/openapi.json) as a third-party validator reads it:
 * openapi-backend (Ajv underneath), not our zod schemas. The e2e client runs every exchange
 * through `documentViolations`, so a document that drifts from the server fails the tests
 * that exercise the drifted route.
 *
 * - The response is always checked: its status must be one the operation documents, and a
 *   JSON body must match that status's schema (a 204 must have no body).
 * - The request is checked only when the server accepted it (2xx): the 422 tests send
 *   invalid input on purpose, and the document must then describe what was accepted.
 *
 * The document is compiled once per process.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import addFormats from 'ajv-formats';
import { type Document, OpenAPIBackend } from 'openapi-backend';

export interface Exchange {
  method: string;
  /** Path and query as sent (`/v1/calls?state=completed,busy`). */
  path: string;
  /** What was sent, when known (a direct fetch may report only the response): headers and the body as the server reads it (parsed JSON, or the form's fields). */
  request?: { headers: Record<string, string>; body?: unknown };
  status: number;
  /** The response body: parsed JSON, or the raw text of a non-JSON body, or undefined when empty. */
  responseBody: unknown;
  responseType: string | null;
}

let compiled: Promise<OpenAPIBackend> | undefined;

function backend(): Promise<OpenAPIBackend> {
  compiled ??= (async () => {
    const definition = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'openapi.json'), 'utf8')) as Document;
    // quick: skip openapi-backend's own check of the document, which knows only OpenAPI 3.0
    // (Redocly and Spectral lint the 3.1 document in test/unit/openapi-lint.test.ts).
    // Formats (date-time, uri, email, uuid …) are checked too: Ajv alone ignores them.
    const api = new OpenAPIBackend({
      definition,
      quick: true,
      validate: true,
      strict: true,
      customizeAjv: (ajv) => {
        addFormats(ajv);
        return ajv;
      },
    });
    await api.init();
    return api;
  })();
  return compiled;
}

const errorsText = (errors: { instancePath?: string; message?: string; params?: unknown }[] | null | undefined) =>
  JSON.stringify((errors ?? []).slice(0, 5).map((e) => `${e.instancePath ?? ''} ${e.message ?? ''} ${JSON.stringify(e.params ?? {})}`));

/** What the document says is wrong with this exchange (empty when it describes it). */
export async function documentViolations(x: Exchange): Promise<string[]> {
  const api = await backend();
  const url = new URL(x.path, 'http://x');
  const query = Object.fromEntries(url.searchParams);
  const headers = Object.fromEntries(Object.entries(x.request?.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const request = { method: x.method.toLowerCase(), path: url.pathname, query, headers, ...(x.request?.body !== undefined ? { body: x.request.body } : {}) };
  const operation = api.matchOperation(request);
  // A path the document does not have answers the fallback's 404/405: nothing to hold it to.
  if (!operation) return x.status === 404 || x.status === 405 ? [] : [`${x.method} ${url.pathname}: no operation in the document`];
  const what = `${operation.operationId} ${x.method} ${url.pathname} → ${x.status}`;
  const out: string[] = [];
  const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  const documented = responses[String(x.status)] ?? responses[`${String(x.status)[0]}XX`];
  if (!documented) out.push(`${what}: status not documented (documents ${Object.keys(responses).join(', ')})`);
  else {
    const hasBody = x.responseBody !== undefined && x.responseBody !== '';
    const mediaTypes = Object.keys(documented.content ?? {});
    if (!mediaTypes.length && hasBody) out.push(`${what}: the document says no content, the server sent a body`);
    if (mediaTypes.length && !hasBody) out.push(`${what}: the document declares ${mediaTypes.join(', ')}, the server sent no body`);
    const type = (x.responseType ?? '').split(';')[0]!.trim().toLowerCase();
    if (hasBody && mediaTypes.length && !mediaTypes.includes(type))
      out.push(`${what}: sent ${type || 'no Content-Type'}, the document declares ${mediaTypes.join(', ')}`);
    if (hasBody && type === 'application/json') {
      const checked = api.validateResponse(x.responseBody, operation, x.status);
      if (checked.errors?.length) out.push(`${what}: the response breaks the document: ${errorsText(checked.errors)}`);
    }
  }
  if (x.request && x.status >= 200 && x.status < 300) {
    const checked = api.validateRequest(request, operation);
    if (checked.errors?.length) out.push(`${what}: the server accepted a request the document refuses: ${errorsText(checked.errors)}`);
  }
  return out;
}
