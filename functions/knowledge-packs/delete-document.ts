import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { defineRoute } from '../../shared/http/route.js';
import { deleteDocument } from '../../shared/repositories/knowledge-packs.js';
import { noContent } from '../../shared/schemas/account-deletion.js';
import { documentPath } from '../../shared/schemas/knowledge-packs.js';

/** DELETE /v1/knowledge-packs/{pack_id}/documents/{document_id} (admin or manager) — 204; published versions keep their frozen copy. */
export const handler = defineRoute('deleteKnowledgeDocument', bearer, { path: documentPath, responses: { 204: noContent } }, async ({ principal, path }) => {
  if (!(await deleteDocument(principal.tenantId, path.pack_id, path.document_id, now()))) throw notFound('Knowledge document');
  return { status: 204, body: undefined };
});
