import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { authenticateSandbox, twilioError } from '../../shared/sandbox/accounts.js';
import { presentSandboxNumber, routeSandboxNumber, sandboxNumberAtPath, sandboxNumberNotFoundMessage } from '../../shared/sandbox/numbers.js';
import { invalidRouting, routingFormFields, routingFromForm } from '../../shared/sandbox/routing-form.js';
import { sandboxNumberResource, twilioErrorResource } from '../../shared/sandbox/schemas.js';

/**
 * POST /sandbox/twilio/2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers/{Sid}.json —
 * change where a number's calls go, as Twilio. Another account's number is a 404 (20404).
 */
export const handler = defineRoute(
  'sandboxUpdateNumber',
  handlerChecked,
  {
    path: z.object({ account_sid: z.string(), number_file: z.string() }),
    body: routingFormFields,
    responses: { 200: sandboxNumberResource, 400: twilioErrorResource, 401: twilioErrorResource, 404: twilioErrorResource },
  },
  async ({ event, path, body }) => {
    const account = await authenticateSandbox(event.headers?.authorization);
    if (!account) return twilioError(401, 20003, 'Authenticate');
    const number = await sandboxNumberAtPath(account.sid, path);
    if (!number) return twilioError(404, 20404, sandboxNumberNotFoundMessage(path));
    const form = body ?? {};
    const badUrl = invalidRouting(form);
    if (badUrl) return badUrl;
    return ok(presentSandboxNumber(await routeSandboxNumber(number, routingFromForm(form))));
  },
);
