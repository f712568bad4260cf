import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getSandboxMessage, presentSandboxMessage } from '../../shared/sandbox/messages.js';
import { notFound, sandboxAccess, sidOfFile } from '../../shared/sandbox/route-access.js';
import { sandboxMessageResource, twilioErrorResource } from '../../shared/sandbox/schemas.js';

/** GET /sandbox/twilio/2010-04-01/Accounts/{AccountSid}/Messages/{Sid}.json — a message as it is now; another account's is 404 20404. */
export const handler = defineRoute(
  'sandboxGetMessage',
  handlerChecked,
  {
    path: z.object({ account_sid: z.string(), message_file: z.string() }),
    responses: { 200: sandboxMessageResource, 401: twilioErrorResource, 404: twilioErrorResource },
  },
  async ({ event, path }) => {
    const resource = `Messages/${path.message_file}`;
    const access = await sandboxAccess(event, path.account_sid, resource);
    if ('error' in access) return access.error;
    const sid = sidOfFile(path.message_file, 'SM');
    const message = sid && (await getSandboxMessage(sid, access.account.sid));
    return message ? ok(presentSandboxMessage(message)) : notFound(`${path.account_sid}/${resource}`);
  },
);
