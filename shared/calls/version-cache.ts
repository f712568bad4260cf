/**
 * What a warm instance keeps of an agent version, by the version's IMMUTABLE id: a version is
 * written once by its publish and never changed, and a new publish makes a new id, so a hit is
 * exactly what the table holds for that id. It never serves a stale version because the id
 * always comes from a fresh read (the agent item, read strongly consistently on every request,
 * names its latest; a call's claims name its pinned one), never from here; what changes (the
 * agent item, suppressions, consents, numbers) is never kept. Each user configures its own
 * cache: what it loads for an id, and how it knows the loaded item is the one the id names.
 */
import { RecentlyUsed } from '../recently-used.js';

/** Enough for every agent a tenant's instance calls with; the least recently used goes first. */
const CAPACITY = 256;

export class VersionCache<V> {
  readonly #kept = new RecentlyUsed<string, V>(CAPACITY);

  /**
   * `load` reads the item when `versionId` is not kept (or is not known: then nothing is kept);
   * what it found is kept only when `names(found)` holds, i.e. it is the item `versionId` names.
   */
  async get(
    tenantId: string,
    versionId: string | null | undefined,
    load: () => Promise<V | undefined>,
    names: (found: V) => boolean = () => true,
  ): Promise<V | undefined> {
    const slot = versionId ? `${tenantId}|${versionId}` : undefined;
    const hit = slot ? this.#kept.get(slot) : undefined;
    if (hit) return hit;
    const found = await load();
    if (found && slot && names(found)) this.#kept.set(slot, found);
    return found;
  }
}
