import { now } from '../../shared/clock.js';
import { conflict, invalid, notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getAgentRecord } from '../../shared/repositories/agents.js';
import { getPhoneNumber, NumberChanged, presentPhoneNumber, updatePhoneNumber } from '../../shared/repositories/phone-numbers.js';
import { numberPath, phoneNumberPatchRequest, phoneNumberSummary } from '../../shared/schemas/phone-numbers.js';

/**
 * PATCH /v1/phone-numbers/{number_id} — the inbound agent (it must have a published
 * version: calls pin one), the route (`agent` or `voicemail`; leaving `policy` keeps the
 * stored policy for a later PUT), the voicemail greeting and the daily dial cap. Applied
 * only to the number as read; a concurrent change is a 409.
 */
export const handler = defineRoute(
  'updatePhoneNumber',
  bearer,
  { path: numberPath, body: phoneNumberPatchRequest, responses: { 200: phoneNumberSummary } },
  async ({ principal, path, body }) => {
    const number = await getPhoneNumber(principal.tenantId, path.number_id);
    if (!number) throw notFound('Phone number');
    if (number.status === 'provisioning')
      throw conflict('phone_number_provisioning', 'The number is still being provisioned with the carrier; retry once its status is active');
    if (body.inbound_agent_id) {
      const agent = await getAgentRecord(principal.tenantId, body.inbound_agent_id, true);
      if (!agent) throw invalid(['body', 'inbound_agent_id'], 'No agent of this tenant has this id', 'not_found', body.inbound_agent_id);
      if (agent.version_count < 1)
        throw invalid(
          ['body', 'inbound_agent_id'],
          'The agent has no published version; publish it first (calls pin a published version)',
          'agent_not_published',
          body.inbound_agent_id,
        );
    }
    try {
      const { inbound_agent_id, inbound_route_mode, inbound_voicemail_greeting, daily_dial_cap } = body;
      const changes = Object.fromEntries(
        Object.entries({ inbound_agent_id, inbound_route_mode, inbound_voicemail_greeting, daily_dial_cap }).filter(([, v]) => v !== undefined),
      );
      const at = now();
      return ok(presentPhoneNumber(await updatePhoneNumber(number, changes, { now: at }), at));
    } catch (err) {
      if (err instanceof NumberChanged) throw conflict('phone_number_changed', 'The number changed while this request was applied; read it and retry');
      throw err;
    }
  },
);
