import { calendarAvailability } from '../../shared/calendar/calendar-service.js';
import { now } from '../../shared/clock.js';
import { DomainError } from '../../shared/errors.js';
import { streamToken } from '../../shared/http/auth/stream-token.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { activeCalendar, activeCalendarId, guardedCalendar } from '../../shared/repositories/integration-connections.js';
import { availabilityRequest, availabilityResponse, calendarNotConnectedError } from '../../shared/schemas/integrations.js';
import { callEventsPath } from '../../shared/schemas/runtime-events.js';

/**
 * POST /runtime/v1/calls/{call_id}/calendar/availability — the voice runtime's check_calendar
 * tool, with the call's Stream token: the same request and the same function as POST
 * /v1/calendar/availability, for the call's tenant, so what the agent offers on the phone is
 * what the API shows.
 */
export const handler = defineRoute(
  'runtimeCheckCalendar',
  streamToken,
  { path: callEventsPath, body: availabilityRequest, responses: { 200: availabilityResponse, 409: calendarNotConnectedError } },
  async ({ body, stream, early }) => {
    const connection = early ? await guardedCalendar(stream.tenant_id, await early.handle) : await activeCalendar(stream.tenant_id);
    if (!connection) throw new DomainError('conflict', 'calendar_not_connected', 'The tenant has no active calendar connection');
    return ok(await calendarAvailability(connection, body, now()));
  },
  // The tool waits on this answer mid-sentence: the calendar guard is read beside the token's call check.
  {
    early: (tenantId: string) => {
      const guard = activeCalendarId(tenantId);
      guard.catch(() => {}); // awaited by the work only if the token is accepted; its failure surfaces there
      return { handle: guard };
    },
  },
);
