/**
 * The one warm-instance cache of agent versions (shared/calls/version-cache.ts): a version is
 * loaded once per (tenant, immutable id); an id it has not met, an id it cannot know, an item
 * that is not the one the id names and an item that is not there are loaded every time.
 */
import { describe, expect, it } from 'vitest';
import { VersionCache } from '../../shared/calls/version-cache.js';

type V = { id: string; n: number };

function loader(found: (call: number) => V | undefined) {
  let calls = 0;
  return { load: async () => found(++calls), calls: () => calls };
}

describe('VersionCache', () => {
  it('loads an id once; a new id (a new publish) is loaded at once, never answered with the kept one', async () => {
    const cache = new VersionCache<V>();
    const one = loader((n) => ({ id: 'v1', n }));
    expect(await cache.get('t', 'v1', one.load)).toEqual({ id: 'v1', n: 1 });
    expect(await cache.get('t', 'v1', one.load)).toEqual({ id: 'v1', n: 1 });
    expect(one.calls()).toBe(1);
    const two = loader((n) => ({ id: 'v2', n }));
    expect(await cache.get('t', 'v2', two.load)).toEqual({ id: 'v2', n: 1 });
    expect(two.calls()).toBe(1);
  });

  it('keeps per tenant: the same id under another tenant is loaded', async () => {
    const cache = new VersionCache<V>();
    const l = loader((n) => ({ id: 'v1', n }));
    await cache.get('t1', 'v1', l.load);
    await cache.get('t2', 'v1', l.load);
    expect(l.calls()).toBe(2);
  });

  it('keeps nothing without an id, nothing the id does not name, nothing that is not there', async () => {
    const cache = new VersionCache<V>();
    const noId = loader((n) => ({ id: 'v1', n }));
    await cache.get('t', null, noId.load);
    await cache.get('t', undefined, noId.load);
    expect(noId.calls()).toBe(2);

    const other = loader((n) => ({ id: 'v0', n }));
    await cache.get('t', 'v1', other.load, (found) => found.id === 'v1');
    expect(await cache.get('t', 'v1', other.load, (found) => found.id === 'v1')).toEqual({ id: 'v0', n: 2 });
    expect(other.calls()).toBe(2);

    const missing = loader(() => undefined);
    expect(await cache.get('t', 'v9', missing.load)).toBeUndefined();
    await cache.get('t', 'v9', missing.load);
    expect(missing.calls()).toBe(2);
  });
});
