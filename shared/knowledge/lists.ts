/** The pages of packs and of a pack's versions (cursor-paged reads over the store's items). */
import { knowledgePackKeys } from '../db/keys.js';
import { queryPage } from '../pagination/page.js';
import { presentPack, presentVersion } from '../repositories/knowledge-packs.js';
import type { KnowledgePackVersion } from '../schemas/knowledge-packs.js';

export const listPacks = (tenantId: string, opts: { limit: number; cursor?: string }) =>
  queryPage({
    tenantId,
    scope: 'knowledge_packs',
    skPrefix: knowledgePackKeys.packsPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: presentPack,
  });

export const listPackVersions = (tenantId: string, packId: string, opts: { limit: number; cursor?: string }) =>
  queryPage({
    tenantId,
    scope: `knowledge_pack_versions:${packId}`,
    partition: knowledgePackKeys.partition(tenantId, packId),
    skPrefix: knowledgePackKeys.versionsPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    projection: ['pack_id', 'version', 'content_hash', 'document_count', 'passage_count', 'bytes', 'retrieval', 'published_at'],
    map: (item) => presentVersion(item) as Omit<KnowledgePackVersion, 'documents'>,
  });
