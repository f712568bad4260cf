import { calendarAvailability, connectedCalendar } from '../../shared/calendar/calendar-service.js';
import { now } from '../../shared/clock.js';
import { DomainError } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { availabilityRequest, availabilityResponse, calendarNotConnectedError } from '../../shared/schemas/integrations.js';

/**
 * POST /v1/calendar/availability (the contract) — free slots on the tenant's connected calendar:
 * provider free/busy → the connection's working hours → 15-minute grid → never in the past.
 * The runtime's check_calendar tool answers from the same function. No active calendar →
 * 409 calendar_not_connected.
 */
export const handler = defineRoute(
  'calendarAvailability',
  bearer,
  { body: availabilityRequest, responses: { 200: availabilityResponse, 409: calendarNotConnectedError } },
  async ({ principal, body }) => {
    const calendar = await connectedCalendar(principal.tenantId, body);
    if (!calendar)
      throw new DomainError('conflict', 'calendar_not_connected', 'No active calendar connection: connect one under /v1/integration-connections first');
    return ok(await calendarAvailability(calendar.connection, body, now(), calendar.read));
  },
);
