import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildOpenApi, loadHandler, stringify } from '../../infra/openapi/build.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { documentViolations } from '../support/openapi-contract.js';

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
    const doc = (await buildOpenApi()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string; content: Record<string, { schema: unknown }> }> }>>;
    };
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
    for (const [path, method] of [
      ['/v1/sessions', 'post'],
      ['/v1/sessions/email-link', 'post'],
      ['/v1/sessions/email-link/confirm', 'post'],
      ['/v1/account-deletion/email-confirmations/confirm', 'post'],
    ] as const) {
      expect(op(path, method)['401']?.description, path).toMatch(/Authorization header/);
    }
  });
});

describe('docs/openapi.json accepts what the server accepts and describes what it sends (openapi-backend)', () => {
  const ok = { status: 200, responseBody: { data: [], has_more: false, next_cursor: null }, responseType: 'application/json' };
  const auth = { authorization: 'Bearer vak_x' };

  // First in this block: the checker is compiled on its first use, and Ajv only warns there.
  it('knows every format the document uses (Ajv alone skips unknown formats with a warning)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await documentViolations({ method: 'GET', path: '/v1/calls', request: { headers: auth }, ...ok });
      expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => /unknown format/.test(m))).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('comma-separated OR filters validate; a value outside the enum does not', async () => {
    const page = async (query: string) => documentViolations({ method: 'GET', path: `/v1/calls?${query}`, request: { headers: auth }, ...ok });
    expect(await page('state=completed,busy')).toEqual([]);
    expect(await page('state.in=completed, busy&direction=outbound')).toEqual([]);
    expect((await page('state=completed,flying')).join()).toMatch(/refuses/);
  });

  it('204 answers have no content: a body there is drift, no body is right', async () => {
    for (const [method, path] of [
      ['POST', '/v1/sessions'],
      ['DELETE', '/v1/sessions'],
      ['POST', '/v1/sessions/email-link/confirm'],
    ] as const) {
      expect(await documentViolations({ method, path, status: 204, responseBody: undefined, responseType: null })).toEqual([]);
      expect((await documentViolations({ method, path, status: 204, responseBody: null, responseType: 'application/json' })).join()).toMatch(/no content/);
    }
  });

  it('form routes take their fields as application/x-www-form-urlencoded, with the callback query', async () => {
    const doc = (await buildOpenApi()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> }; parameters?: { name: string; in: string }[] }>>;
    };
    const formRoutes = (routes as readonly RouteDefinition[]).filter((r) => r.bodyFormat === 'form');
    expect(formRoutes.length).toBeGreaterThanOrEqual(14);
    for (const r of formRoutes)
      expect(Object.keys(doc.paths[r.path]![r.method.toLowerCase()]!.requestBody!.content), r.id).toEqual(['application/x-www-form-urlencoded']);
    const names = (path: string) => doc.paths[path]!.post!.parameters!.filter((p) => p.in === 'query').map((p) => p.name);
    expect(names('/carrier/twilio/status')).toEqual(['call_id']);
    expect(names('/carrier/twilio/outbound')).toEqual(['call_id']);
    expect(names('/carrier/twilio/message-status')).toEqual(['message_id']);
    expect(names('/carrier/twilio/policy-action')).toEqual(expect.arrayContaining(['call_id', 'step_path', 'sig']));
    expect(names('/carrier/twilio/relay-action')).toEqual(expect.arrayContaining(['call_id', 'reconnects', 'sig']));
    const status = await documentViolations({
      method: 'POST',
      path: '/carrier/twilio/status?call_id=cal_1',
      request: { headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 's' }, body: { CallSid: 'CA1', CallStatus: 'ringing' } },
      status: 200,
      responseBody: { received: true },
      responseType: 'application/json',
    });
    expect(status).toEqual([]);
  });

  it('partial working_hours validate on the way in, while the answer lists every day', async () => {
    const patch = (body: unknown) =>
      documentViolations({
        method: 'PATCH',
        path: '/v1/integration-connections/icn_1',
        request: { headers: { ...auth, 'content-type': 'application/json' }, body },
        status: 200,
        responseBody: {
          id: 'icn_1',
          provider: 'sandbox_calendar',
          scopes: [],
          status: 'active',
          timezone: 'UTC',
          working_hours: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, []])),
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: '2026-01-01T00:00:00.000Z',
        },
        responseType: 'application/json',
      });
    expect(await patch({ working_hours: { saturday: [{ start: '10:00', end: '12:00' }] } })).toEqual([]);
    expect(await patch({ timezone: 'America/Chicago' })).toEqual([]);
    expect((await patch({ working_hours: { caturday: [] } })).join()).toMatch(/refuses/);
  });

  it('a status the operation does not document is drift', async () => {
    expect((await documentViolations({ method: 'GET', path: '/v1/me', status: 201, responseBody: {}, responseType: 'application/json' })).join()).toMatch(
      /status not documented/,
    );
  });

  it('POST /v1/phone-numbers and the fit review answer 200 (the contract: unless stated, a response is 200)', async () => {
    for (const id of ['createPhoneNumber', 'createFitReview']) {
      const route = (routes as readonly RouteDefinition[]).find((r) => r.id === id)!;
      const statuses = Object.keys((await loadHandler(route)).schemas.responses)
        .map(Number)
        .filter((s) => s < 300);
      expect(statuses, id).toEqual([200]);
    }
  });
});
