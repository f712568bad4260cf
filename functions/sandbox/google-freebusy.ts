import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { sandboxBearer, sandboxBusy } from '../../shared/sandbox/google.js';
import { timestamp } from '../../shared/schemas/common.js';

const googleError = z.object({ error: z.object({ code: z.int(), message: z.string() }) });
/** POST /sandbox/google/calendar/v3/freeBusy — the primary calendar's busy blocks; an expired or revoked access token is Google's 401. */
export const handler = defineRoute(
  'sandboxGoogleFreeBusy',
  handlerChecked,
  {
    body: z.object({
      timeMin: timestamp,
      timeMax: timestamp,
      timeZone: z.string().max(64).optional(),
      items: z.array(z.object({ id: z.string().max(200) })).max(50),
    }),
    responses: {
      200: z.object({
        kind: z.string(),
        timeMin: z.string(),
        timeMax: z.string(),
        calendars: z.record(z.string(), z.object({ busy: z.array(z.object({ start: z.string(), end: z.string() })) })),
      }),
      401: googleError,
    },
  },
  async ({ body, event }) => {
    const grant = await sandboxBearer(event.headers?.authorization);
    if (!grant) return { status: 401, body: { error: { code: 401, message: 'Request had invalid authentication credentials.' } } };
    const busy = await sandboxBusy(grant, Date.parse(body.timeMin), Date.parse(body.timeMax));
    return {
      status: 200,
      body: {
        kind: 'calendar#freeBusy',
        timeMin: body.timeMin,
        timeMax: body.timeMax,
        calendars: Object.fromEntries(body.items.map((i) => [i.id, { busy: i.id === 'primary' ? busy : [] }])),
      },
    };
  },
);
