/**
 * A published version's passages and loaded index, as the runtime and the analysis read them:
 * the blob is read and parsed once per process and kept in a small cache (versions never
 * change, so nothing goes stale; the cache only bounds memory).
 */
import { gunzipSync } from 'node:zlib';
import type { Passage } from '../policy/knowledge/passages.js';
import { getPackVersion, readBlob } from '../repositories/knowledge-packs.js';
import { type PassageIndex, retrievalBackend } from './retrieval.js';

export interface LoadedPackVersion {
  pack_id: string;
  version: number;
  passages: ReadonlyMap<string, Passage>;
  index: PassageIndex;
}

const CACHE_SIZE = 8;
const cache = new Map<string, Promise<LoadedPackVersion | undefined>>();

async function load(tenantId: string, packId: string, version: number): Promise<LoadedPackVersion | undefined> {
  const stored = await getPackVersion(tenantId, packId, version);
  if (!stored) return undefined;
  const blob = await readBlob(tenantId, packId, stored.content_hash);
  if (!blob) return undefined;
  const { passages, index } = JSON.parse(gunzipSync(blob).toString('utf8')) as { passages: Passage[]; index: unknown };
  return { pack_id: packId, version, passages: new Map(passages.map((p) => [p.id, p])), index: retrievalBackend().load(passages, index) };
}

/** The version, loaded; undefined when it does not exist in this tenant. */
export function loadPackVersion(tenantId: string, packId: string, version: number): Promise<LoadedPackVersion | undefined> {
  const key = `${tenantId}/${packId}/${version}`;
  let hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  hit = load(tenantId, packId, version).catch((err) => {
    cache.delete(key);
    throw err;
  });
  cache.set(key, hit);
  hit.then((v) => v === undefined && cache.delete(key));
  while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return hit;
}

/** The best passages of a pinned pack version for a contact's words (none when the version cannot be read). */
export async function retrievePassages(
  tenantId: string,
  pack: { id: string; version: number },
  query: string,
): Promise<{ id: string; title: string; text: string }[]> {
  const loaded = await loadPackVersion(tenantId, pack.id, pack.version);
  return loaded ? loaded.index.search(query).map(({ id, title, text }) => ({ id, title, text })) : [];
}
