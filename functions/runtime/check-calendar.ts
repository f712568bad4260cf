import { calendarAvailability, connectedCalendar } from '../../shared/calendar/calendar-service.js';
import { now } from '../../shared/clock.js';
import { DomainError } from '../../shared/errors.js';
import { streamToken } from '../../shared/http/auth/stream-token.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
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
    const calendar = await (early?.handle ?? connectedCalendar(stream.tenant_id, body));
    if (!calendar) throw new DomainError('conflict', 'calendar_not_connected', 'The tenant has no active calendar connection');
    return ok(await calendarAvailability(calendar.connection, body, now(), calendar.read));
  },
  // The tool waits on this answer mid-sentence: the calendar (and a sandbox calendar's events) is read beside the token's call check.
  {
    early: (tenantId: string, body: unknown) => {
      const asked = availabilityRequest.safeParse(body);
      const calendar = connectedCalendar(tenantId, asked.success ? asked.data : undefined);
      calendar.catch(() => {}); // awaited by the work only if the token is accepted; its failure surfaces there
      return { handle: calendar };
    },
  },
);
