import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, loadHandler, stringify } from '../../infra/openapi/build.js';
import { routes, type RouteDefinition } from '../../shared/routes.js';

describe('docs/openapi.json', () => {
  it('is current: regenerate with `npm run openapi` when this fails', async () => {
    const committed = readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'openapi.json'), 'utf8');
    expect(committed).toBe(stringify(await buildOpenApi()));
  });

  it('describes every manifest route as OpenAPI 3.1, version 0.1.0, with security and the 422 shape', async () => {
    const doc = (await buildOpenApi()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown>; operationId: string }>>;
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.ValidationError).toBeDefined();
    for (const r of routes) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      expect(op?.operationId, `${r.method} ${r.path}`).toBe(r.id);
      if (r.auth === 'bearer') {
        expect(op!.security).toEqual([{ bearerAuth: [] }]);
        expect(op!.responses['401']).toBeDefined();
      }
    }
  });

  it('lists 415 (in the error shape) on every operation that takes a body, and only there', async () => {
    const doc = (await buildOpenApi()) as { paths: Record<string, Record<string, { responses: Record<string, { description: string; content: Record<string, { schema: unknown }> }> }>> };
    const withBody: string[] = [];
    for (const r of routes as readonly RouteDefinition[]) {
      const op = doc.paths[r.path]![r.method.toLowerCase()]!;
      const takesBody = Boolean((await loadHandler(r)).schemas.body);
      if (!takesBody) {
        expect(op.responses['415'], r.id).toBeUndefined();
        continue;
      }
      withBody.push(r.id);
      expect(op.responses['415'], r.id).toBeDefined();
      expect(op.responses['415']!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Error' });
      expect(op.responses['415']!.description, r.id).toMatch(r.bodyFormat === 'form' ? /form/ : /JSON/);
    }
    expect(withBody).toEqual(expect.arrayContaining(['createContact', 'createContactImport', 'instantiateTemplate', 'updateAgent', 'postCallEvents']));
  });

  it('declares the dashboard routes’ 401 and 403 as they answer them: no 403 on the overview GET, role and CSRF on the requests, 401 for an Authorization header on sign-in and the confirm', async () => {
    const doc = (await buildOpenApi()) as { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };
    const op = (path: string, method: string) => doc.paths[path]![method]!.responses;
    expect(op('/v1/account-deletion', 'get')['403']).toBeUndefined();
    for (const m of ['post', 'delete']) {
      expect(op('/v1/account-deletion/requests', m)['403']!.description).toMatch(/Requires role admin/);
      expect(op('/v1/account-deletion/requests', m)['403']!.description).toMatch(/Origin is not the dashboard \(CSRF\)/);
    }
    for (const [path, method] of [['/v1/sessions', 'post'], ['/v1/sessions/email-link', 'post'], ['/v1/sessions/email-link/confirm', 'post'], ['/v1/account-deletion/email-confirmations/confirm', 'post']] as const) {
      expect(op(path, method)['401']?.description, path).toMatch(/Authorization header/);
    }
  });
});
