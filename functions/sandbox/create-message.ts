import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { logger } from '../../shared/observability.js';
import { twilioError } from '../../shared/sandbox/accounts.js';
import { deleteSandboxMessage, planSandboxMessage, presentSandboxMessage, putSandboxMessage } from '../../shared/sandbox/messages.js';
import { getSandboxNumber } from '../../shared/sandbox/numbers.js';
import { sandboxAccess } from '../../shared/sandbox/route-access.js';
import { sandboxMessageResource, twilioErrorResource, twilioForm } from '../../shared/sandbox/schemas.js';
import { sandboxStepMs } from '../../shared/sandbox/timeline.js';
import { scheduleStep } from '../../shared/sandbox/timeline-queue.js';
import { NUMBER_E164 } from '../../shared/schemas/phone.js';

const callbackUrl = z.url({ protocol: /^https?$/ }).max(4000);

/**
 * POST /sandbox/twilio/2010-04-01/Accounts/{AccountSid}/Messages.json — send an SMS, as
 * Twilio: 201 with the queued Message; its delivery (sent, then delivered, or a failure for
 * the test numbers that fail) is posted, signed, to StatusCallback. Twilio's codes: To
 * 21604/21211, From 21603/21606, Body 21602/21617, StatusCallback 21609.
 */
export const handler = defineRoute(
  'sandboxCreateMessage',
  handlerChecked,
  {
    path: z.object({ account_sid: z.string() }),
    body: twilioForm,
    responses: { 201: sandboxMessageResource, 400: twilioErrorResource, 401: twilioErrorResource, 404: twilioErrorResource, 500: twilioErrorResource },
  },
  async ({ event, path, body }) => {
    const access = await sandboxAccess(event, path.account_sid, 'Messages.json', { active: true });
    if ('error' in access) return access.error;
    const { To: to, From: from, Body: text, StatusCallback: statusCallback } = body ?? {};
    if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
    if (!NUMBER_E164.test(to)) return twilioError(400, 21211, `Invalid 'To' Phone Number: ${to.slice(0, 40)}`);
    if (!from) return twilioError(400, 21603, "A 'From' phone number is required.");
    if (!text) return twilioError(400, 21602, 'Message body is required.');
    if (text.length > 1600) return twilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    if (statusCallback && !callbackUrl.safeParse(statusCallback).success)
      return twilioError(400, 21609, `StatusCallback is not a valid URL: ${statusCallback.slice(0, 200)}`);
    const number = await getSandboxNumber(from);
    if (!number || number.account_sid !== access.account.sid)
      return twilioError(
        400,
        21606,
        `The From phone number ${from.slice(0, 40)} is not a valid, SMS-capable inbound phone number or short code for your account.`,
      );
    const message = planSandboxMessage(
      { accountSid: access.account.sid, to, from, body: text, statusCallback: statusCallback || null },
      new Date(),
      sandboxStepMs(),
    );
    await putSandboxMessage(message);
    try {
      await scheduleStep('message', message.sid, 0, message.plan[0]!.due_at);
    } catch (err) {
      logger.error('sandbox message not scheduled', { message_sid: message.sid, error: (err as Error).message });
      await deleteSandboxMessage(message.sid);
      return twilioError(500, 20500, 'Internal Server Error');
    }
    return created(presentSandboxMessage(message));
  },
);
