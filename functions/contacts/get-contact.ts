import * as z from 'zod';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getContactRecord, presentContact } from '../../shared/repositories/contacts.js';
import { contactResource } from '../../shared/schemas/contacts.js';

/** GET /v1/contacts/{contact_id} — another tenant's id is a 404, like a missing one. */
export const handler = defineRoute(
  'getContact',
  bearer,
  { path: z.object({ contact_id: z.string().min(1).max(64) }), responses: { 200: contactResource } },
  async ({ principal, path }) => {
    const contact = await getContactRecord(principal.tenantId, path.contact_id);
    if (!contact) throw notFound('Contact');
    return ok(presentContact(contact, new Date()));
  },
);
