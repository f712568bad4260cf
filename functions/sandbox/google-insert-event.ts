import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { sandboxBearer, sandboxInsertEvent } from '../../shared/sandbox/google.js';
import { timestamp } from '../../shared/schemas/common.js';

const googleError = z.object({ error: z.object({ code: z.int(), message: z.string() }) });
/** POST /sandbox/google/calendar/v3/calendars/primary/events — insert an event; a client-chosen id already used is Google's 409; an injected fault (failNextSandboxGoogleInsert) is Google's 503 once. */
export const handler = defineRoute(
  'sandboxGoogleInsertEvent',
  handlerChecked,
  {
    body: z.object({
      id: z.string().regex(/^[a-v0-9]{5,1024}$/),
      summary: z.string().max(1000).default(''),
      start: z.object({ dateTime: timestamp }),
      end: z.object({ dateTime: timestamp }),
    }),
    responses: { 200: z.object({ kind: z.string(), id: z.string(), status: z.string() }), 401: googleError, 409: googleError, 503: googleError },
  },
  async ({ body, event }) => {
    const grant = await sandboxBearer(event.headers?.authorization);
    if (!grant) return { status: 401, body: { error: { code: 401, message: 'Request had invalid authentication credentials.' } } };
    const { created, failed } = await sandboxInsertEvent(grant, { id: body.id, summary: body.summary, start: body.start.dateTime, end: body.end.dateTime });
    if (failed) return { status: 503, body: { error: { code: 503, message: 'Backend Error' } } };
    if (!created) return { status: 409, body: { error: { code: 409, message: 'The requested identifier already exists.' } } };
    return { status: 200, body: { kind: 'calendar#event', id: body.id, status: 'confirmed' } };
  },
);
