/**
 * Publishing a pack's draft as version N+1: the draft documents (read strongly consistent)
 * are frozen with a content hash, split into passages (shared/policy/knowledge/passages.ts)
 * and indexed by the retrieval backend; passages and index are stored as one gzipped blob
 * named by the content hash, then the version item commits in one transaction with the
 * pack's `latest_version` (and the idempotency result). A draft that changed meanwhile, or a
 * concurrent publish, makes the transaction fail: it is read again and retried.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { contentHash } from '../canonical-json.js';
import { commit, conditionalTransaction, noChange, type TransactItem } from '../db/conditional-transaction.js';
import { splitPassages } from '../policy/knowledge/passages.js';
import { draftDocuments, getPack, getPackVersion, packVersionItems, putBlob, readBlob, type StoredPackVersion } from '../repositories/knowledge-packs.js';
import { RACE, type RetryPolicy } from '../retry.js';
import type { KnowledgePackVersion } from '../schemas/knowledge-packs.js';
import { retrievalBackend } from './retrieval.js';

/** The draft has no document: there is nothing to publish. */
export class EmptyDraft extends Error {
  constructor() {
    super('The draft has no document to publish');
    this.name = 'EmptyDraft';
  }
}

/** Each try builds the index and writes its blobs again: fewer tries than a cheap race. */
const PUBLISH: RetryPolicy = { ...RACE, attempts: 5 };

const manifestBlob = (hash: string) => `${hash}.documents`;

/** A published version as the API shows it: the stored item and its document list. undefined: none in this tenant. */
export async function readPackVersion(tenantId: string, packId: string, version: number): Promise<KnowledgePackVersion | undefined> {
  const stored = await getPackVersion(tenantId, packId, version);
  if (!stored) return undefined;
  const blob = await readBlob(tenantId, packId, manifestBlob(stored.content_hash));
  const { blob_chunks: _b, ...rest } = stored;
  return { ...rest, documents: blob ? (JSON.parse(gunzipSync(blob).toString('utf8')) as KnowledgePackVersion['documents']) : [] };
}

/** undefined: no such pack. */
export async function publishPack(
  tenantId: string,
  packId: string,
  at: Date,
  extra: (v: Omit<KnowledgePackVersion, 'documents'>) => TransactItem[] = () => [],
): Promise<StoredPackVersion | undefined> {
  return conditionalTransaction({
    decide: async () => {
      const pack = await getPack(tenantId, packId, true);
      if (!pack) return noChange(undefined);
      const docs = await draftDocuments(tenantId, packId);
      if (!docs.length) throw new EmptyDraft();
      const frozen = docs.map((d) => ({ id: d.id, title: d.title, content: d.content, source_ref: d.source_ref }));
      const hash = contentHash(frozen);
      const passages = splitPassages(frozen);
      const backend = retrievalBackend();
      const blob = gzipSync(JSON.stringify({ passages, index: backend.build(passages) }));
      const chunks = await putBlob(tenantId, packId, hash, blob);
      const documents = docs.map((d) => ({
        id: d.id,
        title: d.title,
        source_ref: d.source_ref,
        passage_ids: passages.filter((p) => p.document_id === d.id).map((p) => p.id),
      }));
      await putBlob(tenantId, packId, manifestBlob(hash), gzipSync(JSON.stringify(documents)));
      const version: StoredPackVersion = {
        pack_id: packId,
        version: (pack.latest_version ?? 0) + 1,
        content_hash: hash,
        document_count: docs.length,
        passage_count: passages.length,
        bytes: docs.reduce((n, d) => n + d.bytes, 0),
        retrieval: backend.name,
        published_at: at.toISOString(),
        blob_chunks: chunks,
      };
      const { blob_chunks: _b, ...shown } = version;
      return commit([...packVersionItems(tenantId, packId, pack, version, at), ...extra(shown)], version);
    },
    policy: PUBLISH,
  });
}
