import { ok } from '../../shared/http/responses.js';
import { conflict, invalid } from '../../shared/http/errors.js';
import { defineRoute } from '../../shared/http/route.js';
import { ensureApiAttestation } from '../../shared/repositories/attestations.js';
import { DuplicatePhone, newContactItems, presentContact, UnknownOwner, writeNewContact } from '../../shared/repositories/contacts.js';
import { contactCreateRequest, contactResource } from '../../shared/schemas/contacts.js';

/**
 * POST /v1/contacts — the contact, its phone guard and its consent record are one
 * transaction (and, with an Idempotency-Key, so is the stored result). The consent is
 * linked to the tenant's standing API-source attestation by the server.
 */
export const handler = defineRoute(
  'createContact',
  { body: contactCreateRequest, responses: { 200: contactResource } },
  async ({ principal, body, idempotency }) => {
    const { consent, phone_e164, ...fields } = body;
    const attestation = await ensureApiAttestation(principal.tenantId);
    const now = new Date();
    const created = newContactItems(principal.tenantId, { phone_e164, ...fields }, consent, attestation, { now: now.toISOString() });
    const result = ok(presentContact(created.contact, now));
    try {
      await writeNewContact(created.items, idempotency ? [idempotency.commitItem(result)] : []);
    } catch (err) {
      if (err instanceof DuplicatePhone) {
        throw conflict('contact_exists', `A contact with phone ${phone_e164} already exists`, { contact_id: err.contactId });
      }
      if (err instanceof UnknownOwner) throw invalid(['body', 'owner_user_id'], 'owner_user_id must name an active user of this tenant', 'user_not_found', fields.owner_user_id);
      throw err;
    }
    return { ...result, idempotencyCommitted: Boolean(idempotency) };
  },
);
