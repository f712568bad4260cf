import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { authenticateSandbox, twilioError } from '../../shared/sandbox/accounts.js';
import { buySandboxNumber, presentSandboxNumber, SandboxNumberTaken } from '../../shared/sandbox/numbers.js';
import { invalidRouting, routingFormFields, routingFromForm } from '../../shared/sandbox/routing-form.js';
import { sandboxNumberResource, twilioErrorResource } from '../../shared/sandbox/schemas.js';
import { NUMBER_E164 } from '../../shared/schemas/phone.js';

/**
 * POST /sandbox/twilio/2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json — buy a
 * number, as Twilio: any E.164 no other sandbox account holds; a held one is Twilio's 400
 * code 21422. Bad input is Twilio's 400 too (code 21421 for the number, 21402 for a URL).
 */
export const handler = defineRoute(
  'sandboxBuyNumber',
  handlerChecked,
  {
    path: z.object({ account_sid: z.string() }),
    body: z.object({ PhoneNumber: z.string().optional(), ...routingFormFields.shape }),
    responses: { 201: sandboxNumberResource, 400: twilioErrorResource, 401: twilioErrorResource, 404: twilioErrorResource },
  },
  async ({ event, path, body }) => {
    const account = await authenticateSandbox(event.headers?.authorization);
    if (!account) return twilioError(401, 20003, 'Authenticate');
    if (path.account_sid !== account.sid)
      return twilioError(404, 20404, `The requested resource /2010-04-01/Accounts/${path.account_sid.slice(0, 64)}/IncomingPhoneNumbers.json was not found`);
    const form = body ?? {};
    if (!form.PhoneNumber || !NUMBER_E164.test(form.PhoneNumber))
      return twilioError(400, 21421, `PhoneNumber is invalid: ${form.PhoneNumber?.slice(0, 64) ?? '(missing)'}`);
    const badUrl = invalidRouting(form);
    if (badUrl) return badUrl;
    try {
      return created(presentSandboxNumber(await buySandboxNumber(account.sid, form.PhoneNumber, routingFromForm(form))));
    } catch (err) {
      if (err instanceof SandboxNumberTaken) return twilioError(400, 21422, `PhoneNumber ${form.PhoneNumber} is not available.`);
      throw err;
    }
  },
);
