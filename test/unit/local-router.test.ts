import { describe, expect, it } from 'vitest';
import { createRouter } from '../../shared/http/route-matcher.js';
import { routes } from '../../shared/routes.js';

const router = createRouter(routes);

describe('local router (route manifest)', () => {
  it('maps a templated path to its route with decoded path parameters', () => {
    const m = router.match('POST', '/v1/api-keys/key_123/rotate');
    expect(m).toMatchObject({
      kind: 'route',
      route: { id: 'rotateApiKey' },
      routeKey: 'POST /v1/api-keys/{key_id}/rotate',
      pathParameters: { key_id: 'key_123' },
    });
    const encoded = router.match('POST', '/v1/api-keys/key%2F%20x/rotate');
    expect(encoded).toMatchObject({ kind: 'route', pathParameters: { key_id: 'key/ x' } });
  });

  it('answers not_found for unknown paths, trailing slashes and missing segments', () => {
    expect(router.match('GET', '/v1/nope').kind).toBe('not_found');
    expect(router.match('GET', '/v1/me/').kind).toBe('not_found');
    expect(router.match('POST', '/v1/api-keys//rotate').kind).toBe('not_found');
    expect(router.match('GET', '/').kind).toBe('not_found');
  });

  it('answers method_not_allowed with the allowed methods for a known path', () => {
    expect(router.match('DELETE', '/v1/api-keys')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'POST'] });
    expect(router.match('GET', '/v1/api-keys/key_1/rotate')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
  });

  it('routes every manifest entry to itself', () => {
    for (const r of routes) {
      const path = r.path.replace(/\{([^}]+)\}/g, (_, name: string) => `sample-${name}`);
      const m = router.match(r.method, path);
      expect(m.kind === 'route' && m.route.id, `${r.method} ${r.path}`).toBe(r.id);
    }
  });

  it('prefers literal segments over parameters, and supports greedy parameters', () => {
    const r = createRouter([
      { id: 'byId', method: 'GET', path: '/things/{id}' },
      { id: 'search', method: 'GET', path: '/things/search' },
      { id: 'files', method: 'GET', path: '/files/{path+}' },
    ]);
    expect(r.match('GET', '/things/search')).toMatchObject({ route: { id: 'search' } });
    expect(r.match('GET', '/things/t1')).toMatchObject({ route: { id: 'byId' }, pathParameters: { id: 't1' } });
    expect(r.match('GET', '/files/a/b/c.txt')).toMatchObject({ route: { id: 'files' }, pathParameters: { path: 'a/b/c.txt' } });
    expect(r.match('GET', '/files').kind).toBe('not_found');
  });
});
