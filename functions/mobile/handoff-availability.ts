import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { handoffAvailability } from '../../shared/mobile/handoff-booking.js';
import { getHandoff } from '../../shared/repositories/handoffs.js';
import { handoffAvailabilityRequest } from '../../shared/schemas/integrations.js';
import { handoffAvailabilityResponse, handoffConflictError, handoffPath } from '../../shared/schemas/mobile.js';

/**
 * POST /v1/mobile/receptionist/handoffs/{handoff_id}/booking/availability (the contract) — free slots
 * for a carrier-confirmed handoff, each with an opaque signed id bound to the handoff and
 * expiring in 10 minutes. start_date, end_date, duration_minutes and timezone are all
 * required; any call, contact, attendee, connection or calendar field is refused
 * (extra_forbidden): all come from the handoff. Pending handoff → 409 handoff_not_confirmed;
 * no calendar → 409 calendar_not_connected.
 */
export const handler = defineRoute(
  'handoffBookingAvailability',
  bearer,
  { path: handoffPath, body: handoffAvailabilityRequest, responses: { 200: handoffAvailabilityResponse, 409: handoffConflictError } },
  async ({ principal, path, body }) => {
    const handoff = await getHandoff(principal.tenantId, path.handoff_id, now());
    if (!handoff) throw notFound('Handoff');
    return ok(await handoffAvailability(principal.tenantId, handoff, body));
  },
);
