import { startCallReads } from '../../shared/calls/compliance-inputs.js';
import { judgeCall, judgeCallHttpError } from '../../shared/calls/judge-call.js';
import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { preflightCallRequest, preflightResult } from '../../shared/schemas/calls.js';

/**
 * POST /v1/calls/preflight — the queue-call body (plus an optional `at`) judged exactly as
 * POST /v1/calls will judge it: the agent's latest published version, the contact's
 * consents, suppression, National DNC, recent attempts and calling-time rules, and the
 * caller number the dispatcher would pick. Answers the decision; writes nothing. The contact
 * and the tenant's numbers are read alongside the credential (`early`).
 */
export const handler = defineRoute(
  'preflightCall',
  bearer,
  { body: preflightCallRequest, responses: { 200: preflightResult } },
  async ({ principal, body, early }) => {
    // The platform clock, as POST /v1/calls judges: "now" is the same instant for both (the early reads' when they ran).
    const at = body.at ? new Date(body.at) : (early?.handle.at ?? now());
    try {
      const judged = await judgeCall(principal.tenantId, { agent_id: body.agent_id, contact_id: body.contact_id }, at, { early });
      const caller = judged.caller && {
        phone_number_id: judged.caller.id,
        from_e164: judged.caller.phone_e164,
        telephony_account_id: judged.caller.telephony_account_id,
      };
      return ok({ ...judged.decision, agent_version_id: judged.agentVersion.id, caller });
    } catch (err) {
      throw judgeCallHttpError(err);
    }
  },
  { early: (tenantId: string, body: unknown) => startCallReads(tenantId, body, (body as { at?: unknown } | undefined)?.at) },
);
