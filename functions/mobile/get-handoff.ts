import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { presentHandoff } from '../../shared/mobile/handoff-booking.js';
import { getHandoff } from '../../shared/repositories/handoffs.js';
import { handoffPath, handoffResource } from '../../shared/schemas/mobile.js';

/** GET /v1/mobile/receptionist/handoffs/{handoff_id} — status (pending → confirmed → booked); another tenant's id is a 404. */
export const handler = defineRoute('getHandoff', bearer, { path: handoffPath, responses: { 200: handoffResource } }, async ({ principal, path }) => {
  const handoff = await getHandoff(principal.tenantId, path.handoff_id, now(), { persist: false });
  if (!handoff) throw notFound('Handoff');
  return ok(presentHandoff(handoff));
});
