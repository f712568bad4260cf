import * as z from 'zod';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { authenticateSandbox, twilioError } from '../../shared/sandbox/accounts.js';
import { sandboxAccountResource, twilioErrorResource } from '../../shared/sandbox/schemas.js';

/**
 * GET /sandbox/twilio/2010-04-01/Accounts/{sid}.json — the sandbox carrier answers as
 * Twilio does: Basic auth with the SID and auth token (401 code 20003 otherwise), an
 * account may read only itself (404 code 20404), Twilio's JSON shape and date format.
 */
export const handler = defineRoute(
  'sandboxGetAccount',
  handlerChecked,
  { path: z.object({ account_file: z.string().max(64) }), responses: { 200: sandboxAccountResource, 401: twilioErrorResource, 404: twilioErrorResource } },
  async ({ event, path }) => {
    const account = await authenticateSandbox(event.headers?.authorization);
    if (!account) return twilioError(401, 20003, 'Authenticate');
    if (path.account_file !== `${account.sid}.json`)
      return twilioError(404, 20404, `The requested resource /2010-04-01/Accounts/${path.account_file} was not found`);
    const date = new Date(account.created_at).toUTCString().replace('GMT', '+0000');
    return ok({
      sid: account.sid,
      owner_account_sid: account.sid,
      friendly_name: account.friendly_name,
      status: account.status,
      type: 'Full',
      date_created: date,
      date_updated: date,
      uri: `/2010-04-01/Accounts/${account.sid}.json`,
    });
  },
);
