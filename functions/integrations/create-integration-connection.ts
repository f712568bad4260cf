import * as z from 'zod';
import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { createConnection, SANDBOX_SCOPES } from '../../shared/repositories/integration-connections.js';
import { errorWith } from '../../shared/schemas/common.js';
import { connectSandboxRequest, integrationConnection } from '../../shared/schemas/integrations.js';

/**
 * POST /v1/integration-connections — connects a `sandbox_calendar` at once (active, no
 * OAuth). Google Calendar connects through /v1/integration-connections/oauth/start.
 * 409 calendar_already_connected while another calendar is active.
 */
export const handler = defineRoute(
  'createIntegrationConnection',
  bearer,
  {
    body: connectSandboxRequest,
    responses: { 201: integrationConnection, 409: errorWith('CalendarAlreadyConnectedError', { connection_id: z.string().nullable() }) },
  },
  async ({ principal, body }) =>
    created(
      await createConnection(
        principal.tenantId,
        {
          provider: body.provider,
          scopes: SANDBOX_SCOPES,
          timezone: body.timezone,
          working_hours: body.working_hours,
        },
        now(),
      ),
    ),
);
