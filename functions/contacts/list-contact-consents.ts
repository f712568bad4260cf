import * as z from 'zod';
import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getContactRecord, listConsents } from '../../shared/repositories/contacts.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { consentRecordResource } from '../../shared/schemas/contacts.js';

/** GET /v1/contacts/{contact_id}/consents — every consent record, with evidence and attestation. */
export const handler = defineRoute(
  'listContactConsents',
  bearer,
  { path: z.object({ contact_id: z.string().min(1).max(64) }), query: pageQuery, responses: { 200: cursorPage(consentRecordResource) } },
  async ({ principal, path, query }) => {
    if (!(await getContactRecord(principal.tenantId, path.contact_id))) throw notFound('Contact');
    return ok(await listConsents(principal.tenantId, path.contact_id, query, now()));
  },
);
