import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getMessageRecord, presentMessage } from '../../shared/repositories/messages.js';
import { messagePath, messageSummary } from '../../shared/schemas/text-messages.js';

/** GET /v1/messages/{message_id} — one text; another tenant's id is a 404, like a missing one. */
export const handler = defineRoute('getMessage', bearer, { path: messagePath, responses: { 200: messageSummary } }, async ({ principal, path }) => {
  const message = await getMessageRecord(principal.tenantId, path.message_id);
  if (!message) throw notFound('Message');
  return ok(presentMessage(message as unknown as Record<string, unknown>));
});
