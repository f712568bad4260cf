import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { twilioError } from '../../shared/sandbox/accounts.js';
import { hangUpSandboxCall, presentSandboxCall } from '../../shared/sandbox/calls.js';
import { notFound, sandboxAccess, sidOfFile } from '../../shared/sandbox/route-access.js';
import { sandboxCallResource, twilioErrorResource, twilioForm } from '../../shared/sandbox/schemas.js';
import { scheduleStep } from '../../shared/sandbox/timeline-queue.js';

/**
 * POST /sandbox/twilio/2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json with
 * Status=completed (hang up; a call not yet answered is canceled) or Status=canceled
 * (cancel a queued or ringing call; an answered call is left alone), as Twilio. The final
 * status callback follows from the timeline worker. Redirecting a live call (Url, Twiml)
 * is not part of the sandbox: 400 20001.
 */
export const handler = defineRoute(
  'sandboxUpdateCall',
  handlerChecked,
  {
    path: z.object({ account_sid: z.string(), call_file: z.string() }),
    body: twilioForm,
    responses: { 200: sandboxCallResource, 400: twilioErrorResource, 401: twilioErrorResource, 404: twilioErrorResource },
  },
  async ({ event, path, body }) => {
    const resource = `Calls/${path.call_file}`;
    const access = await sandboxAccess(event, path.account_sid, resource);
    if ('error' in access) return access.error;
    const sid = sidOfFile(path.call_file, 'CA');
    if (!sid) return notFound(`${path.account_sid}/${resource}`);
    const status = body?.Status;
    if (status !== 'completed' && status !== 'canceled')
      return twilioError(400, 20001, 'The sandbox updates a call only with Status=completed or Status=canceled');
    const result = await hangUpSandboxCall(sid, access.account.sid, status, new Date());
    if (!result) return notFound(`${path.account_sid}/${resource}`);
    // The step still pending would play this final step too, at its own time: this is only sooner.
    if (result.changed) await scheduleStep('call', sid, result.call.step, Date.now());
    return ok(presentSandboxCall(result.call));
  },
);
