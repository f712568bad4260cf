import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { MESSAGE_STATUSES } from '../../shared/policy/messages/status.js';
import { listMessages } from '../../shared/repositories/messages.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { INBOUND_INTENTS, MESSAGE_DIRECTIONS, messageSummary } from '../../shared/schemas/text-messages.js';

/**
 * GET /v1/messages — the tenant's texts, outbound and inbound, newest first (the contract);
 * filter grammar of the API conventions (`created_at` takes the range suffixes; every
 * filter takes `.in` and comma-separated alternatives).
 */
export const handler = defineListRoute(
  'listMessages',
  bearer,
  {
    query: pageQuery,
    filters: {
      contact_id: { kind: 'string' },
      created_at: { kind: 'datetime' },
      direction: { kind: 'enum', values: MESSAGE_DIRECTIONS },
      inbound_intent: { kind: 'enum', values: INBOUND_INTENTS },
      origin_call_id: { kind: 'string' },
      status: { kind: 'enum', values: MESSAGE_STATUSES },
    },
    responses: { 200: cursorPage(messageSummary) },
  },
  async ({ principal, query, filters }) => ok(await listMessages(principal.tenantId, { ...query, filters })),
);
