/**
 * Knowledge packs: the pack item, its draft documents, its immutable versions and each
 * version's stored passages + index (a blob cut into chunks under the item limit). The only
 * place their DynamoDB commands are built; key layout in shared/db/keys.ts (knowledgePackKeys).
 */
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { putItems } from '../db/batch-write.js';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction, noChange, type TransactItem } from '../db/conditional-transaction.js';
import { knowledgePackKeys } from '../db/keys.js';
import { queryCollection } from '../db/query.js';
import { failedConditionIndex } from '../db/transact-write.js';
import { updateFields } from '../db/update.js';
import { isDocumentId, isPackId, newId } from '../ids.js';
import { KNOWLEDGE_LIMITS } from '../policy/knowledge/limits.js';
import type { KnowledgeDocument, KnowledgePack, KnowledgePackVersion } from '../schemas/knowledge-packs.js';

/**
 * Bytes of blob per chunk item: under DynamoDB's 400 KB item limit even where binary is
 * counted base64-encoded (DynamoDB Local does: 256 KB → 342 KB), with room for the keys.
 */
const BLOB_CHUNK_BYTES = 256 * 1024;

export function presentPack(item: Record<string, unknown>): KnowledgePack {
  const p = item as unknown as KnowledgePack;
  return {
    id: p.id,
    name: p.name,
    description: p.description ?? null,
    document_count: p.document_count,
    draft_bytes: p.draft_bytes,
    latest_version: p.latest_version ?? null,
    revision: p.revision,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

const presentDocument = (item: Record<string, unknown>): KnowledgeDocument => {
  const d = item as unknown as KnowledgeDocument;
  return { id: d.id, pack_id: d.pack_id, title: d.title, content: d.content, source_ref: d.source_ref ?? null, bytes: d.bytes, created_at: d.created_at };
};

/**
 * A stored version: the resource without its document list (a thousand documents' titles and
 * passage ids would not fit one item; the list is a blob of its own, `<content hash>.documents`)
 * plus how many chunks its passage blob took.
 */
export type StoredPackVersion = Omit<KnowledgePackVersion, 'documents'> & { blob_chunks: number };

export const presentVersion = (item: Record<string, unknown>): StoredPackVersion => {
  const { pk: _pk, sk: _sk, type: _t, tenant_id: _tid, ...rest } = item;
  return rest as unknown as StoredPackVersion;
};

export async function createPack(tenantId: string, input: { name: string; description?: string }, at: Date): Promise<KnowledgePack> {
  const now = at.toISOString();
  const pack = presentPack({
    id: newId('kp'),
    name: input.name,
    description: input.description ?? null,
    document_count: 0,
    draft_bytes: 0,
    latest_version: null,
    revision: 1,
    created_at: now,
    updated_at: now,
  });
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...knowledgePackKeys.pack(tenantId, pack.id), type: 'knowledge_pack', tenant_id: tenantId, ...pack },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return pack;
}

export async function getPack(tenantId: string, packId: string, consistent = false): Promise<KnowledgePack | undefined> {
  if (!isPackId(packId)) return undefined; // a malformed id names nothing, like a missing one
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: knowledgePackKeys.pack(tenantId, packId), ConsistentRead: consistent }));
  return out.Item ? presentPack(out.Item) : undefined;
}

export async function updatePack(
  tenantId: string,
  packId: string,
  input: { name?: string; description?: string | null },
  at: Date,
): Promise<KnowledgePack | undefined> {
  if (!isPackId(packId)) return undefined;
  const item = await updateFields(
    knowledgePackKeys.pack(tenantId, packId),
    { name: input.name, description: input.description, updated_at: at.toISOString() },
    { increment: 'revision' },
  );
  return item ? presentPack(item) : undefined;
}

/** Why a document was refused by the pack's limits. */
export class DraftLimitReached extends Error {
  constructor(readonly limit: 'documents' | 'bytes') {
    super(
      limit === 'documents'
        ? `A pack's draft holds at most ${KNOWLEDGE_LIMITS.documentsPerPack} documents`
        : `A pack's draft holds at most ${KNOWLEDGE_LIMITS.packBytes} bytes of content`,
    );
    this.name = 'DraftLimitReached';
  }
}

/**
 * Adds a document to the draft: one transaction that counts it on the pack under the limits
 * (so concurrent adds can never pass them together) and puts it. undefined: no such pack.
 */
export async function addDocument(
  tenantId: string,
  packId: string,
  input: { title: string; content: string; source_ref?: string },
  at: Date,
): Promise<KnowledgeDocument | undefined> {
  if (!isPackId(packId)) return undefined;
  const now = at.toISOString();
  const bytes = Buffer.byteLength(input.content, 'utf8');
  const doc: KnowledgeDocument = {
    id: newId('kpd'),
    pack_id: packId,
    title: input.title,
    content: input.content,
    source_ref: input.source_ref ?? null,
    bytes,
    created_at: now,
  };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: knowledgePackKeys.pack(tenantId, packId),
              UpdateExpression: 'SET document_count = document_count + :one, draft_bytes = draft_bytes + :b, revision = revision + :one, updated_at = :now',
              ConditionExpression: 'attribute_exists(pk) AND document_count < :maxDocs AND draft_bytes <= :room',
              ExpressionAttributeValues: {
                ':one': 1,
                ':b': bytes,
                ':now': now,
                ':maxDocs': KNOWLEDGE_LIMITS.documentsPerPack,
                ':room': KNOWLEDGE_LIMITS.packBytes - bytes,
              },
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...knowledgePackKeys.document(tenantId, packId, doc.id), type: 'knowledge_document', tenant_id: tenantId, ...doc },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
  } catch (err) {
    if (failedConditionIndex(err) !== 0) throw err;
    const pack = await getPack(tenantId, packId, true);
    if (!pack) return undefined;
    throw new DraftLimitReached(pack.document_count >= KNOWLEDGE_LIMITS.documentsPerPack ? 'documents' : 'bytes');
  }
  return doc;
}

/** Removes a document from the draft (published versions keep their frozen copy). false: no such document. */
export async function deleteDocument(tenantId: string, packId: string, documentId: string, at: Date): Promise<boolean> {
  if (!isPackId(packId) || !isDocumentId(documentId)) return false;
  // The pack's sums move by the bytes read; a race (the document deleted meanwhile) reads again.
  return conditionalTransaction({
    decide: async () => {
      const out = await db().send(
        new GetCommand({ TableName: tableName(), Key: knowledgePackKeys.document(tenantId, packId, documentId), ConsistentRead: true }),
      );
      if (!out.Item) return noChange(false);
      return commit(
        [
          { Delete: { TableName: tableName(), Key: knowledgePackKeys.document(tenantId, packId, documentId), ConditionExpression: 'attribute_exists(pk)' } },
          {
            Update: {
              TableName: tableName(),
              Key: knowledgePackKeys.pack(tenantId, packId),
              UpdateExpression: 'SET document_count = document_count - :one, draft_bytes = draft_bytes - :b, revision = revision + :one, updated_at = :now',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':one': 1, ':b': out.Item.bytes as number, ':now': at.toISOString() },
            },
          },
        ],
        true,
      );
    },
  });
}

/** Every document of the draft, by id (creation order), strongly consistent: what a publish freezes. */
export async function draftDocuments(tenantId: string, packId: string): Promise<KnowledgeDocument[]> {
  const items = await queryCollection(
    { pk: knowledgePackKeys.partition(tenantId, packId), prefix: knowledgePackKeys.documentsPrefix },
    { ConsistentRead: true },
  );
  return items.map(presentDocument);
}

/** Writes a blob's chunks (idempotent: named by content hash, so a rewrite writes the same bytes). */
export async function putBlob(tenantId: string, packId: string, contentHash: string, blob: Uint8Array): Promise<number> {
  const items: Record<string, unknown>[] = [];
  for (let i = 0, n = 0; i < blob.length || n === 0; i += BLOB_CHUNK_BYTES, n++) {
    items.push({
      ...knowledgePackKeys.blobChunk(tenantId, packId, contentHash, n),
      type: 'knowledge_blob',
      tenant_id: tenantId,
      data: blob.subarray(i, i + BLOB_CHUNK_BYTES),
    });
  }
  // BatchWrite takes 25 items and 16 MB a request: 25 chunks are under 9 MB.
  await putItems(items);
  return items.length;
}

/** A blob's bytes, its chunks in order (strongly consistent: it was written before its version). */
export async function readBlob(tenantId: string, packId: string, contentHash: string): Promise<Buffer | undefined> {
  const items = await queryCollection(
    { pk: knowledgePackKeys.partition(tenantId, packId), prefix: knowledgePackKeys.blobPrefix(contentHash) },
    { ConsistentRead: true },
  );
  return items.length ? Buffer.concat(items.map((item) => item.data as Uint8Array)) : undefined;
}

/**
 * Version N+1's items for one transaction: the pack's `latest_version` moves from what was
 * read (and its revision is unchanged: the draft frozen is the draft stored), the version item
 * is put if absent. A refusal means the pack moved on (another publish, or the draft changed):
 * a lost race, read again.
 */
export function packVersionItems(tenantId: string, packId: string, read: KnowledgePack, version: StoredPackVersion, at: Date): TransactItem[] {
  return [
    {
      Update: {
        TableName: tableName(),
        Key: knowledgePackKeys.pack(tenantId, packId),
        UpdateExpression: 'SET latest_version = :n, updated_at = :now',
        ConditionExpression: 'revision = :rev AND (latest_version = :prev OR (attribute_not_exists(latest_version) OR latest_version = :null))',
        ExpressionAttributeValues: {
          ':n': version.version,
          ':now': at.toISOString(),
          ':rev': read.revision,
          ':prev': read.latest_version ?? -1,
          ':null': null,
        },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...knowledgePackKeys.version(tenantId, packId, version.version), type: 'knowledge_pack_version', tenant_id: tenantId, ...version },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

export async function getPackVersion(tenantId: string, packId: string, version: number): Promise<StoredPackVersion | undefined> {
  if (!isPackId(packId) || !Number.isSafeInteger(version) || version < 1) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: knowledgePackKeys.version(tenantId, packId, version) }));
  return out.Item ? presentVersion(out.Item) : undefined;
}
