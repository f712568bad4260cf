import { callTranscript } from '../../shared/calls/transcript.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getCall } from '../../shared/repositories/calls.js';
import { callPath, transcriptTurn } from '../../shared/schemas/call-detail.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/**
 * GET /v1/calls/{call_id}/transcript — the call's turns in the order the runtime reported
 * them, the disclosure greeting first; cursor-paged. Another tenant's call is a 404.
 */
export const handler = defineRoute(
  'getCallTranscript',
  bearer,
  { path: callPath, query: pageQuery, responses: { 200: cursorPage(transcriptTurn) } },
  async ({ principal, path, query }) => {
    const call = await getCall(principal.tenantId, path.call_id);
    if (!call) throw notFound('Call');
    return ok(await callTranscript(principal.tenantId, call.id, query));
  },
);
