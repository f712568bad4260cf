import * as z from 'zod';
import { defineRoute } from '../../shared/http/route.js';
import { authenticateSandbox, twilioError } from '../../shared/sandbox/accounts.js';
import { getSandboxNumberBySid, releaseSandboxNumber } from '../../shared/sandbox/numbers.js';
import { twilioErrorResource } from '../../shared/sandbox/schemas.js';
import { noContent } from '../../shared/schemas/account-deletion.js';

/**
 * DELETE /sandbox/twilio/2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers/{Sid}.json —
 * release a number, as Twilio: 204; another account's or an unknown number is a 404 (20404).
 */
export const handler = defineRoute(
  'sandboxReleaseNumber',
  { path: z.object({ account_sid: z.string(), number_file: z.string() }), responses: { 204: noContent, 401: twilioErrorResource, 404: twilioErrorResource } },
  async ({ event, path }) => {
    const account = await authenticateSandbox(event.headers?.authorization);
    if (!account) return twilioError(401, 20003, 'Authenticate');
    const notFound = twilioError(404, 20404, `The requested resource /2010-04-01/Accounts/${path.account_sid.slice(0, 64)}/IncomingPhoneNumbers/${path.number_file.slice(0, 64)} was not found`);
    if (path.account_sid !== account.sid || !path.number_file.endsWith('.json')) return notFound;
    const number = await getSandboxNumberBySid(account.sid, path.number_file.slice(0, -'.json'.length));
    if (!number) return notFound;
    await releaseSandboxNumber(number);
    return { status: 204, body: undefined };
  },
);
