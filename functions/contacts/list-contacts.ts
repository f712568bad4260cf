import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { listContacts } from '../../shared/repositories/contacts.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { contactResource, LEAD_STATUSES } from '../../shared/schemas/contacts.js';
import { CONTACT_PHONE } from '../../shared/schemas/phone.js';

/** GET /v1/contacts — newest first; filter grammar of the API conventions. */
export const handler = defineListRoute(
  'listContacts',
  bearer,
  {
    query: pageQuery,
    filters: {
      phone_e164: { kind: 'string', pattern: CONTACT_PHONE },
      lead_status: { kind: 'enum', values: LEAD_STATUSES },
      owner_user_id: { kind: 'string' },
      do_not_call: { kind: 'boolean' },
      created_at: { kind: 'datetime' },
      updated_at: { kind: 'datetime' },
    },
    responses: { 200: cursorPage(contactResource) },
  },
  async ({ principal, query, filters }) => ok(await listContacts(principal.tenantId, { ...query, filters }, now())),
);
