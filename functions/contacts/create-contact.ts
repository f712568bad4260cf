import { now as clockNow } from '../../shared/clock.js';
import { conflict, invalid } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { ensureApiAttestation } from '../../shared/repositories/attestations.js';
import { DuplicatePhone, newContactItems, presentContact, SuppressionChanged, UnknownOwner, writeNewContact } from '../../shared/repositories/contacts.js';
import { isSuppressed } from '../../shared/repositories/suppression-state.js';
import { contactCreateRequest, contactExistsError, contactResource } from '../../shared/schemas/contacts.js';

/**
 * POST /v1/contacts — the contact, its phone guard and its consent record are one
 * transaction (and, with an Idempotency-Key, so is the stored result). The consent is
 * linked to the tenant's standing API-source attestation by the server. do_not_call is
 * read from the suppression list and held by a check in the same transaction (read again
 * if the number is suppressed or lifted in between).
 */
export const handler = defineRoute(
  'createContact',
  bearer,
  { body: contactCreateRequest, responses: { 200: contactResource, 409: contactExistsError } },
  async ({ principal, body, idempotency }) => {
    const { consent, phone_e164, ...fields } = body;
    const attestation = await ensureApiAttestation(principal.tenantId, clockNow());
    for (let attempt = 1; ; attempt++) {
      const now = new Date();
      const suppressed = await isSuppressed(principal.tenantId, phone_e164);
      const created = newContactItems(principal.tenantId, { phone_e164, ...fields }, consent, attestation, {
        now: now.toISOString(),
        suppression: { suppressed },
      });
      const result = ok(presentContact(created.contact, now));
      try {
        await writeNewContact(created.items, idempotency ? [idempotency.commitItem(result)] : []);
        return { ...result, idempotencyCommitted: Boolean(idempotency) };
      } catch (err) {
        if (err instanceof SuppressionChanged && attempt < 5) continue;
        if (err instanceof DuplicatePhone) {
          throw conflict('contact_exists', `A contact with phone ${phone_e164} already exists`, { contact_id: err.contactId });
        }
        if (err instanceof UnknownOwner)
          throw invalid(['body', 'owner_user_id'], 'owner_user_id must name an active user of this tenant', 'user_not_found', fields.owner_user_id);
        throw err;
      }
    }
  },
);
