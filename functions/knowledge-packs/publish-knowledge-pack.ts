import { now } from '../../shared/clock.js';
import { conflict, notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { EmptyDraft, publishPack } from '../../shared/knowledge/publish.js';
import { knowledgePackVersionSummary, packIdPath } from '../../shared/schemas/knowledge-packs.js';

/**
 * POST /v1/knowledge-packs/{pack_id}/publish (admin or manager; Idempotency-Key required) —
 * freezes the draft as version N+1 with its content_hash; the stored result commits in the
 * same transaction as the version. An empty draft is a 409. The document list is on
 * GET …/versions/{n} (a thousand documents' list would not fit the stored result).
 */
export const handler = defineRoute(
  'publishKnowledgePack',
  bearer,
  { path: packIdPath, responses: { 201: knowledgePackVersionSummary } },
  async ({ principal, path, idempotency }) => {
    try {
      const version = await publishPack(principal.tenantId, path.pack_id, now(), (v) => (idempotency ? [idempotency.commitItem(created(v))] : []));
      if (!version) throw notFound('Knowledge pack');
      return { ...created(present(version)), idempotencyCommitted: Boolean(idempotency) };
    } catch (err) {
      if (err instanceof EmptyDraft) throw conflict('empty_draft', 'Add a document to the draft before publishing');
      throw err;
    }
  },
);

const present = ({ blob_chunks: _b, ...v }: { blob_chunks: number } & Record<string, unknown>) => v;
