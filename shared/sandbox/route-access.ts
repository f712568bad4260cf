/** The checks every sandbox resource route makes first, with Twilio's error bodies. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteResult } from '../http/responses.js';
import { authenticateSandbox, type SandboxAccount, twilioError } from './accounts.js';

export const notFound = (resource: string) => twilioError(404, 20404, `The requested resource /2010-04-01/Accounts/${resource} was not found`);

/**
 * The account the Basic auth proves, if it is the one the path names (another account's
 * resources are 404 20404, as on Twilio). `active` refuses a suspended or closed account
 * (Twilio's 20005) for routes that would place a call or send a message.
 */
export async function sandboxAccess(
  event: APIGatewayProxyEventV2,
  accountSid: string,
  resource: string,
  opts: { active?: boolean } = {},
): Promise<{ account: SandboxAccount } | { error: RouteResult }> {
  const account = await authenticateSandbox(event.headers?.authorization);
  if (!account) return { error: twilioError(401, 20003, 'Authenticate') };
  if (accountSid !== account.sid) return { error: notFound(`${accountSid}/${resource}`) };
  if (opts.active && account.status !== 'active') return { error: twilioError(401, 20005, 'Account not active') };
  return { account };
}

/** `{sid}.json` → the sid, or undefined. */
export const sidOfFile = (file: string, prefix: 'CA' | 'SM'): string | undefined => {
  const m = new RegExp(`^(${prefix}[0-9a-f]{32})\\.json$`).exec(file);
  return m?.[1];
};
