/**
 * Connecting a carrier account (POST /v1/telephony-accounts): a mock account gets a sandbox
 * carrier account of its own first, then the account is stored. Kept out of the store so
 * the stores the call path reads never reach the sandbox.
 */
import { now } from '../clock.js';
import { newId } from '../ids.js';
import type { TelephonyProviderName } from '../policy/telephony-states.js';
import type { SanRef } from '../repositories/caller-pool.js';
import { createTelephonyAccount, type TelephonyAccountRecord } from '../repositories/telephony-accounts.js';
import { newSandboxCredentials, putSandboxAccount } from '../sandbox/accounts.js';
import type { TelephonyMode, TwilioCredentials } from '../schemas/telephony.js';

export async function connectTelephonyAccount(input: {
  tenantId: string;
  mode: TelephonyMode;
  provider: TelephonyProviderName;
  credentials?: TwilioCredentials;
  a2pBrandRef?: string;
  ftcSanRefs?: SanRef[];
}): Promise<TelephonyAccountRecord> {
  const id = newId('tac');
  const sandbox = input.provider === 'mock' ? newSandboxCredentials() : undefined;
  if (sandbox) await putSandboxAccount(sandbox, { friendlyName: `Sandbox for ${id}` });
  return createTelephonyAccount({ ...input, id, at: now(), ...(sandbox ? { sandbox } : {}) });
}
