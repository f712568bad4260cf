import { startCallReads } from '../../shared/calls/compliance-inputs.js';
import { judgeCallHttpError } from '../../shared/calls/judge-call.js';
import { queueCall } from '../../shared/calls/queue-call.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { queueCallRequest } from '../../shared/schemas/calls.js';
import { contactAttempt } from '../../shared/schemas/contact-attempts.js';

/**
 * POST /v1/calls — queue one call (Idempotency-Key required). Judged now as preflight
 * judges it; the call record, its contact attempt, the compliance decision, the
 * idempotency result and the outbox events are one transaction (shared/calls/queue-call.ts).
 * 200 with the ContactAttempt: scheduled (allow: now; defer: next_permitted_at) or disposed
 * (block, never dialled). Unknown agent/contact → 422; an unpublished agent → 409.
 * Its only write is that transaction, so the Idempotency-Key is taken there (no claim first).
 * The contact and the tenant's numbers are read alongside the credential (`early`).
 */
export const handler = defineRoute(
  'queueCall',
  bearer,
  { body: queueCallRequest, responses: { 200: contactAttempt } },
  async ({ principal, body, idempotency, early }) => {
    try {
      const { attempt } = await queueCall(principal.tenantId, body, {
        idempotencyKey: idempotency?.key ?? null,
        extraItems: (a) => (idempotency ? [idempotency.commitItem(ok(a))] : []),
        early,
      });
      return { ...ok(attempt), idempotencyCommitted: Boolean(idempotency) };
    } catch (err) {
      throw judgeCallHttpError(err);
    }
  },
  { idempotency: 'in_transaction', early: (tenantId: string, body: unknown) => startCallReads(tenantId, body) },
);
