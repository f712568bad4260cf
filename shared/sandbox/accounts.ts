/**
 * The sandbox carrier's own accounts (platform-owned: no tenant key reaches them). Like
 * Twilio it keeps each account's auth token, because it must check Basic auth and, later,
 * sign its callbacks with it; the token is sealed like every other party's secret.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { open, seal } from '../crypto/secret-box.js';
import { putSandboxAccountItem, readSandboxAccount } from '../repositories/sandbox-accounts.js';

export const SANDBOX_ACCOUNT_STATUSES = ['active', 'suspended', 'closed'] as const;
export type SandboxAccountStatus = (typeof SANDBOX_ACCOUNT_STATUSES)[number];

export interface SandboxAccount {
  sid: string;
  friendly_name: string;
  status: SandboxAccountStatus;
  auth_token_sealed: string;
  created_at: string;
}

const context = (sid: string) => ({ purpose: 'sandbox_auth_token', account_sid: sid });
const SID_PATTERN = /^AC[0-9a-f]{32}$/;

export const newSandboxCredentials = () => ({ account_sid: `AC${randomBytes(16).toString('hex')}`, auth_token: randomBytes(16).toString('hex') });

/** Store a sandbox account with these credentials (a no-op if the SID exists). */
export async function putSandboxAccount(
  creds: { account_sid: string; auth_token: string },
  opts: { status?: SandboxAccountStatus; friendlyName?: string } = {},
): Promise<void> {
  const account: SandboxAccount = {
    sid: creds.account_sid,
    friendly_name: opts.friendlyName ?? 'Sandbox account',
    status: opts.status ?? 'active',
    auth_token_sealed: await seal(creds.auth_token, context(creds.account_sid)),
    created_at: new Date().toISOString(),
  };
  await putSandboxAccountItem(account);
}

export async function getSandboxAccount(sid: string): Promise<SandboxAccount | undefined> {
  if (!SID_PATTERN.test(sid)) return undefined;
  return readSandboxAccount<SandboxAccount>(sid);
}

/** The account's auth token: what its callbacks are signed with. */
export const openSandboxAuthToken = (account: SandboxAccount): Promise<string> => open(account.auth_token_sealed, context(account.sid));

/** The account a Basic-auth header proves, or undefined (unknown SID, wrong token, malformed header). */
export async function authenticateSandbox(authorization: string | undefined): Promise<SandboxAccount | undefined> {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const account = await getSandboxAccount(decoded.slice(0, colon));
  if (!account) return undefined;
  const expected = Buffer.from(await open(account.auth_token_sealed, context(account.sid)), 'utf8');
  const given = Buffer.from(decoded.slice(colon + 1), 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given) ? account : undefined;
}

/** Twilio's error body shape (code, message, more_info, status). */
export const twilioError = (status: number, code: number, message: string) => ({
  status,
  body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
});
