import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getSandboxCall, presentSandboxCall } from '../../shared/sandbox/calls.js';
import { notFound, sandboxAccess, sidOfFile } from '../../shared/sandbox/route-access.js';
import { sandboxCallResource, twilioErrorResource } from '../../shared/sandbox/schemas.js';

/** GET /sandbox/twilio/2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json — a call as it is now; another account's is 404 20404. */
export const handler = defineRoute(
  'sandboxGetCall',
  handlerChecked,
  {
    path: z.object({ account_sid: z.string(), call_file: z.string() }),
    responses: { 200: sandboxCallResource, 401: twilioErrorResource, 404: twilioErrorResource },
  },
  async ({ event, path }) => {
    const resource = `Calls/${path.call_file}`;
    const access = await sandboxAccess(event, path.account_sid, resource);
    if ('error' in access) return access.error;
    const sid = sidOfFile(path.call_file, 'CA');
    const call = sid && (await getSandboxCall(sid, access.account.sid));
    return call ? ok(presentSandboxCall(call)) : notFound(`${path.account_sid}/${resource}`);
  },
);
