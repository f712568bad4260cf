import { presentCall } from '../../shared/calls/present-call.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getCall } from '../../shared/repositories/calls.js';
import type { CallRecordWithEvents } from '../../shared/repositories/runtime-events.js';
import { callQualifications } from '../../shared/repositories/workflow-outcomes.js';
import { callDetail, callPath } from '../../shared/schemas/call-detail.js';

/** GET /v1/calls/{call_id} — outbound or inbound; another tenant's id is a 404, like a missing one. */
export const handler = defineRoute('getCall', bearer, { path: callPath, responses: { 200: callDetail } }, async ({ principal, path }) => {
  const call = await getCall(principal.tenantId, path.call_id);
  if (!call) throw notFound('Call');
  return ok(presentCall(call as CallRecordWithEvents, await callQualifications(principal.tenantId, path.call_id)));
});
