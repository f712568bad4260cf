import { describe, expect, it } from 'vitest';
import { bearer } from '../../shared/http/auth/bearer.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { originOnly } from '../../shared/http/auth/origin.js';
import { session } from '../../shared/http/auth/session.js';
import { streamToken } from '../../shared/http/auth/stream-token.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { routes } from '../../shared/routes.js';

const MODULES = [bearer, session, originOnly, streamToken, handlerChecked];
const work = async () => ok({});

describe('a route hands the factory the module of the auth mode its manifest entry names', () => {
  it('every manifest mode is proven by exactly one module', () => {
    const claimed = MODULES.flatMap((m) => m.modes);
    expect(new Set(claimed).size).toBe(claimed.length);
    for (const r of routes) expect(claimed, `${r.id} (${r.auth})`).toContain(r.auth);
  });

  it('a handler holding another mode refuses to load; its own mode loads', () => {
    expect(() => defineRoute('queueCall', session, { responses: {} }, work)).toThrow(/queueCall has auth bearer/);
    expect(() => defineRoute('queueCall', handlerChecked, { responses: {} }, work)).toThrow(/auth bearer/);
    expect(() => defineRoute('createSession', bearer, { responses: {} }, work)).toThrow(/auth dashboard_origin/);
    expect(() => defineRoute('queueCall', bearer, { responses: {} }, work)).not.toThrow();
  });
});
