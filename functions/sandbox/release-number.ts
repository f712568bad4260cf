import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { authenticateSandbox, twilioError } from '../../shared/sandbox/accounts.js';
import { releaseSandboxNumber, sandboxNumberAtPath, sandboxNumberNotFoundMessage } from '../../shared/sandbox/numbers.js';
import { twilioErrorResource } from '../../shared/sandbox/schemas.js';
import { noContent } from '../../shared/schemas/account-deletion.js';

/**
 * DELETE /sandbox/twilio/2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers/{Sid}.json —
 * release a number, as Twilio: 204; another account's or an unknown number is a 404 (20404).
 */
export const handler = defineRoute(
  'sandboxReleaseNumber',
  handlerChecked,
  { path: z.object({ account_sid: z.string(), number_file: z.string() }), responses: { 204: noContent, 401: twilioErrorResource, 404: twilioErrorResource } },
  async ({ event, path }) => {
    const account = await authenticateSandbox(event.headers?.authorization);
    if (!account) return twilioError(401, 20003, 'Authenticate');
    const number = await sandboxNumberAtPath(account.sid, path);
    if (!number) return twilioError(404, 20404, sandboxNumberNotFoundMessage(path));
    await releaseSandboxNumber(number);
    return { status: 204, body: undefined };
  },
);
