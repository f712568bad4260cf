import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { logger } from '../../shared/observability.js';
import { twilioError } from '../../shared/sandbox/accounts.js';
import { readCallForm } from '../../shared/sandbox/call-form.js';
import { deleteSandboxCall, planSandboxCall, presentSandboxCall, putSandboxCall } from '../../shared/sandbox/calls.js';
import { getSandboxNumber } from '../../shared/sandbox/numbers.js';
import { sandboxAccess } from '../../shared/sandbox/route-access.js';
import { sandboxCallResource, twilioErrorResource, twilioForm } from '../../shared/sandbox/schemas.js';
import { sandboxStepMs } from '../../shared/sandbox/timeline.js';
import { scheduleStep } from '../../shared/sandbox/timeline-queue.js';

/**
 * A carrier stamps a call when the request reaches it (Twilio's date_created), before its own
 * routing and look-ups: that instant is what cps ceilings are counted on. API Gateway's arrival
 * instant (`requestContext.timeEpoch`, the local router's too) is it; the handler's own clock
 * runs later by the routing, the middleware and a queue in the event loop. Absent (a direct
 * invocation): now.
 */
const arrivedAt = (timeEpoch: number | undefined): Date =>
  new Date(typeof timeEpoch === 'number' && Number.isFinite(timeEpoch) && timeEpoch > 0 ? timeEpoch : Date.now());

/**
 * POST /sandbox/twilio/2010-04-01/Accounts/{AccountSid}/Calls.json — place a call, as
 * Twilio: 201 with the queued Call; the number called picks the timeline (README "Sandbox
 * test numbers") that the sandbox-timeline worker plays, posting signed status callbacks.
 * From must be a number the account holds (21210).
 */
export const handler = defineRoute(
  'sandboxCreateCall',
  handlerChecked,
  {
    path: z.object({ account_sid: z.string() }),
    body: twilioForm,
    responses: { 201: sandboxCallResource, 400: twilioErrorResource, 401: twilioErrorResource, 404: twilioErrorResource, 500: twilioErrorResource },
  },
  async ({ event, path, form }) => {
    const landed = arrivedAt(event.requestContext?.timeEpoch);
    const read = readCallForm(form);
    // The account and the From number are read together: the dialler's lane waits for this answer.
    const [access, number] = await Promise.all([
      sandboxAccess(event, path.account_sid, 'Calls.json', { active: true }),
      'error' in read ? undefined : getSandboxNumber(read.form.from),
    ]);
    if ('error' in access) return access.error;
    if ('error' in read) return read.error;
    if (!number || number.account_sid !== access.account.sid) {
      return twilioError(
        400,
        21210,
        `The source phone number provided, ${read.form.from.slice(0, 40)}, is not yet verified for your account. You may only make calls from phone numbers that you've verified or purchased.`,
      );
    }
    const call = planSandboxCall(read.form, access.account.sid, number.sid, landed, sandboxStepMs());
    await putSandboxCall(call);
    try {
      await scheduleStep('call', call.sid, 0, call.plan[0]!.due_at);
    } catch (err) {
      // A call that can never play must not exist: the caller sees a failure and nothing was placed.
      logger.error('sandbox call not scheduled', { call_sid: call.sid, error: (err as Error).message });
      await deleteSandboxCall(call.sid);
      return twilioError(500, 20500, 'Internal Server Error');
    }
    return created(presentSandboxCall(call));
  },
);
