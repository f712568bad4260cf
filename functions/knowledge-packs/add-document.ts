import { now } from '../../shared/clock.js';
import { invalid, notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { addDocument, DraftLimitReached } from '../../shared/repositories/knowledge-packs.js';
import { knowledgeDocument, knowledgeDocumentCreateRequest, packIdPath } from '../../shared/schemas/knowledge-packs.js';

/**
 * POST /v1/knowledge-packs/{pack_id}/documents (admin or manager) — adds a text or Markdown
 * document to the draft; the next publish splits and indexes it. A full draft (documents or
 * bytes) is a 422 at body.content.
 */
export const handler = defineRoute(
  'addKnowledgeDocument',
  bearer,
  { path: packIdPath, body: knowledgeDocumentCreateRequest, responses: { 201: knowledgeDocument } },
  async ({ principal, path, body }) => {
    try {
      const doc = await addDocument(principal.tenantId, path.pack_id, body, now());
      if (!doc) throw notFound('Knowledge pack');
      return created(doc);
    } catch (err) {
      if (err instanceof DraftLimitReached)
        throw invalid(['body', 'content'], err.message, err.limit === 'documents' ? 'too_many_documents' : 'pack_too_large');
      throw err;
    }
  },
);
