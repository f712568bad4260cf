import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHandler } from '../../infra/openapi/build.js';
import { fallbackRoute, type RouteDefinition, routeKey, routes } from '../../shared/routes.js';
import { workers } from '../../shared/workers.js';

const root = resolve(import.meta.dirname, '..', '..');
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });

describe('the route manifest', () => {
  const all = routes as readonly RouteDefinition[];

  it('has unique ids, unique method+path pairs and well-formed paths', () => {
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    expect(new Set(all.map(routeKey)).size).toBe(all.length);
    // Lowercase everywhere except the sandbox carrier, which mirrors Twilio's own paths.
    // Lowercase everywhere except the sandbox's Google, which mirrors Google's (…/freeBusy).
    for (const r of all)
      expect(r.path).toMatch(
        r.path.startsWith('/sandbox/twilio/') || r.path.startsWith('/sandbox/google/') ? /^\/[A-Za-z0-9\-./{}_]*$/ : /^\/[a-z0-9\-./{}_]*$/,
      );
  });

  it('names a handler file for every entry, and every handler file has an entry', () => {
    const handlerFiles = filesUnder(join(root, 'functions'))
      .map((f) => relative(root, f).replace(/\.ts$/, ''))
      .filter((f) => !f.startsWith('functions/workers/') && !f.startsWith('functions/deploy/') && !f.startsWith('functions/relay/'))
      .sort();
    expect(handlerFiles).toEqual([...all.map((r) => r.handler), fallbackRoute.handler].sort());
    for (const w of workers) expect(existsSync(join(root, `${w.handler}.ts`))).toBe(true);
    // The voice runtime's WebSocket routes ($connect, $default, $disconnect) are the relay API's, not the HTTP manifest's.
    for (const r of ['connect', 'default', 'disconnect']) expect(existsSync(join(root, `functions/relay/${r}.ts`))).toBe(true);
    // Deploy hooks are run by CloudFormation (infra/constructs/platform-seed.ts), not by a route.
    expect(filesUnder(join(root, 'functions', 'deploy')).map((f) => relative(root, f))).toEqual(['functions/deploy/seed-platform.ts']);
  });

  it('every handler module was built by the factory for its own manifest entry', async () => {
    for (const r of all) {
      const handler = await loadHandler(r);
      expect(handler.route.id, r.handler).toBe(r.id);
      expect(Object.keys(handler.schemas.responses).length, r.handler).toBeGreaterThan(0);
    }
  });

  it('keeps every /v1 route behind bearer auth (the dashboard’s behind its session or Origin) and public routes read-only at most', () => {
    // Issue 16: the only /v1 routes not behind API keys are the dashboard's sessions and the account deletion.
    const dashboard = (p: string) =>
      p === '/v1/sessions' || p.startsWith('/v1/sessions/') || p === '/v1/account-deletion' || p.startsWith('/v1/account-deletion/');
    /*
     * OAuth is the other exception, by its nature (docs/decisions/call-analysis-and-outcomes.md, "Calendar connections"):
     * Google's redirect back is a browser GET whose credential is the one-use `state` (checked
     * by the handler before it writes), and the sandbox's Google checks its own client
     * credentials, codes and Bearer tokens, as Google does. No other public route writes.
     */
    const oauth = new Set(['completeGoogleOAuth', 'sandboxGoogleAuthorize', 'sandboxGoogleToken', 'sandboxGoogleRevoke', 'sandboxGoogleInsertEvent']);
    for (const r of all) {
      if (r.path.startsWith('/v1/') && !dashboard(r.path)) expect(r.auth, r.id).toBe('bearer');
      if (dashboard(r.path)) expect(r.auth, r.id).toMatch(/^(session|dashboard_origin|portal_origin)$/);
      if (r.auth === 'portal_origin') expect(r.path, r.id).toBe('/v1/account-deletion/email-confirmations/confirm');
      if (oauth.has(r.id)) {
        expect(r.path, r.id).toMatch(/^\/(oauth\/google\/callback$|sandbox\/google\/)/);
        continue;
      }
      if (r.auth === 'none') expect(r.table, r.id).not.toBe('write');
      // Carrier-facing routes carry the carrier's own credential; nothing else does.
      if (r.auth === 'sandbox_basic') expect(r.path, r.id).toMatch(/^\/sandbox\/twilio\//);
      if (r.auth === 'twilio_signature') expect(r.path, r.id).toMatch(/^\/carrier\/twilio\//);
      // The payment provider's webhooks carry its signature (see docs/decisions/billing.md).
      if (r.auth === 'stripe_signature') expect(r.path, r.id).toMatch(/^\/provider\/stripe\//);
      // The voice runtime's routes carry the call's Stream token, and name the call it binds.
      if (r.auth === 'stream_token') expect(r.path, r.id).toMatch(/^\/runtime\/v1\/calls\/\{call_id\}\//);
      if (r.path.startsWith('/runtime/')) expect(r.auth, r.id).toBe('stream_token');
      if (r.bodyFormat === 'form') expect(r.auth, r.id).toMatch(/^(sandbox_basic|twilio_signature)$/);
      if (r.method === 'GET') expect(r.table, r.id).not.toBe('write');
    }
  });
});
