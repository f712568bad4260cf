import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created, ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { bookHandoffSlot, presentHandoff } from '../../shared/mobile/handoff-booking.js';
import { getHandoff } from '../../shared/repositories/handoffs.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { bookingRequest, handoffConflictError, handoffPath, handoffResource } from '../../shared/schemas/mobile.js';

/**
 * POST /v1/mobile/receptionist/handoffs/{handoff_id}/booking {slot_id} — books the slot on the
 * connected calendar (201; the same slot again → 200 with the same booking). A tampered or
 * another handoff's slot → 422 (slot_invalid / slot_foreign on ["body","slot_id"]); an expired
 * one → 409 slot_expired; a slot no longer free → 409 slot_taken; another slot on a booked
 * handoff → 409 handoff_already_booked; an unconfirmed handoff → 409 handoff_not_confirmed;
 * Google failing → 502 calendar_provider_error with nothing booked (retry the same slot).
 */
export const handler = defineRoute(
  'bookHandoff',
  bearer,
  { path: handoffPath, body: bookingRequest, responses: { 200: handoffResource, 201: handoffResource, 409: handoffConflictError, 502: errorSchema } },
  async ({ principal, path, body }) => {
    const handoff = await getHandoff(principal.tenantId, path.handoff_id, now());
    if (!handoff) throw notFound('Handoff');
    const result = await bookHandoffSlot(principal.tenantId, handoff, body.slot_id);
    return result.created ? created(presentHandoff(result.handoff)) : ok(presentHandoff(result.handoff));
  },
);
