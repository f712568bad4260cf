import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadHandler } from '../../infra/openapi/build.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { errorSchema, timestamp } from '../../shared/schemas/common.js';
import { strictDeep } from '../support/strict-schema.js';

const item = z.object({
  id: z.string(),
  at: timestamp,
  tags: z.array(z.object({ k: z.string() })),
  meta: z.record(z.string(), z.object({ n: z.int() })).nullable(),
});
const page = z.object({ data: z.array(item), next: z.object({ cursor: z.string() }).optional() });
const good = { data: [{ id: 'a', at: '2026-01-01T00:00:00Z', tags: [{ k: 'x' }], meta: { m: { n: 1 } } }] };

describe('strictDeep: a response schema that refuses undeclared keys at any depth', () => {
  it('accepts what the schema declares, and keeps its refinements', () => {
    expect(strictDeep(page).safeParse(good).success).toBe(true);
    const outOfRange = { data: [{ ...good.data[0], at: '9999-12-31T23:59:59-01:00' }] };
    expect(strictDeep(page).safeParse(outOfRange).success).toBe(false);
  });

  it.each([
    ['at the top', { ...good, extra: 1 }, []],
    ['in an array item', { data: [{ ...good.data[0], pk: 'TENANT#x' }] }, ['data', 0]],
    ['in an array of arrays', { data: [{ ...good.data[0], tags: [{ k: 'x', sk: 'y' }] }] }, ['data', 0, 'tags', 0]],
    ['in a record value', { data: [{ ...good.data[0], meta: { m: { n: 1, secret: 's' } } }] }, ['data', 0, 'meta', 'm']],
    ['in an optional object', { ...good, next: { cursor: 'c', key: 1 } }, ['next']],
  ])('refuses an unknown key %s (the plain schema strips it)', (_where, value, path) => {
    expect(page.safeParse(value).success).toBe(true);
    const result = strictDeep(page).safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ code: 'unrecognized_keys', path });
  });

  it('leaves objects declared open (looseObject, catchall) open', () => {
    const open = z.object({ a: z.looseObject({ x: z.int() }), b: z.object({}).catchall(z.string()) });
    expect(strictDeep(open).safeParse({ a: { x: 1, y: 2 }, b: { any: 's' } }).success).toBe(true);
    expect(strictDeep(open).safeParse({ a: { x: 1 }, b: { any: 1 } }).success).toBe(false);
  });

  it('follows unions, pipes and lazy schemas', () => {
    const u = z.union([z.object({ kind: z.literal('a') }), z.object({ kind: z.literal('b'), n: z.int() })]);
    expect(strictDeep(u).safeParse({ kind: 'a', n: 1 }).success).toBe(false);
    expect(strictDeep(u).safeParse({ kind: 'b', n: 1 }).success).toBe(true);
    const lazy = z.lazy(() => z.object({ x: z.string() }));
    expect(strictDeep(lazy).safeParse({ x: 's', y: 1 }).success).toBe(false);
    expect(strictDeep(z.object({ x: z.string() }).pipe(z.object({ x: z.string() }))).safeParse({ x: 's', y: 1 }).success).toBe(false);
    expect(strictDeep(errorSchema).safeParse({ detail: 'd', code: 'c', stack: 'at …' }).success).toBe(false);
  });

  it('handles every response schema a route declares', async () => {
    for (const route of routes as readonly RouteDefinition[]) {
      for (const schema of Object.values((await loadHandler(route)).schemas.responses)) expect(() => strictDeep(schema), route.id).not.toThrow();
    }
  });
});
