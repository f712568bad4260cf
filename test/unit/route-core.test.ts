/**
 * The factory's public part (shared/http/route-core.ts): a route built there must be public
 * in the manifest, and a bundle's own manifest entry (put there by infra/bundling.ts) is the
 * one the factory reads.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { ok } from '../../shared/http/responses.js';
import { definePublicRoute, manifestEntry } from '../../shared/http/route-core.js';
import { routeById } from '../../shared/routes.js';

const g = globalThis as { VC_BUNDLED_ROUTE?: string };
afterEach(() => {
  delete g.VC_BUNDLED_ROUTE;
});

describe('definePublicRoute', () => {
  it('refuses a route that proves a caller or honours idempotency keys', () => {
    expect(() => definePublicRoute('getContact', { responses: {} }, async () => ok({}))).toThrow(/not public/);
    expect(() => definePublicRoute('paymentProviderWebhook', { responses: {} }, async () => ok({}))).toThrow(/not public/);
  });

  it('answers a public route through the shared stack (request id, JSON body)', async () => {
    const handler = definePublicRoute('getHealth', { responses: {} }, async () => ok({ status: 'ok' }));
    const event = { rawPath: '/healthz', headers: {}, requestContext: { requestId: 'req-1', http: { method: 'GET' } } } as unknown as APIGatewayProxyEventV2;
    const res = await handler(event, { awsRequestId: 'req-1', functionName: 'getHealth' } as Context);
    expect(res.statusCode).toBe(200);
    expect(res.headers?.['x-request-id']).toBe('req-1');
    expect(JSON.parse(res.body!)).toEqual({ status: 'ok' });
    expect(handler.route).toEqual(routeById('getHealth'));
  });
});

describe('manifestEntry', () => {
  it('is the manifest entry unbundled, and the bundle’s own entry when the bundler set one', () => {
    expect(manifestEntry('getHealth')).toBe(routeById('getHealth'));
    g.VC_BUNDLED_ROUTE = JSON.stringify({ ...routeById('getHealth'), summary: 'as bundled' });
    expect(manifestEntry('getHealth').summary).toBe('as bundled');
  });
});
