/**
 * Who may open a ConversationRelay socket (both hosts: the local upgrade handler and the AWS
 * $connect function). The Stream token rides in the URL's query because API Gateway's
 * $connect sees only the upgrade request, never the `setup` message:
 *   - no token → 401; a token that is not a valid, unexpired Stream token, or names a call
 *     that is not its tenant's → 403;
 *   - X-Twilio-Signature, when present, must be Twilio's signature of the exact relay URL
 *     (no POST parameters on an upgrade) under the call's carrier account auth token → else 403.
 * Nothing is written either way.
 */

import { runtimeWindowOpen } from '../policy/call-state/runtime-window.js';
import { getCall } from '../repositories/calls.js';
import { getTelephonyAccount } from '../repositories/telephony-accounts.js';
import { callTokenKey } from '../telephony/call-token-key.js';
import { type VerifiedStreamClaims, verifyStreamToken } from '../telephony/call-tokens.js';
import { carrierAccess } from '../telephony/carrier-for.js';
import { voiceRuntimeRelayUrl } from '../telephony/endpoints.js';
import { verifyTwilioSignature } from '../telephony/twilio-signature.js';

export type RelayAdmission =
  | { ok: true; claims: VerifiedStreamClaims; token: string }
  | { ok: false; status: 401 | 403; reason: 'missing_token' | 'invalid_token' | 'unknown_call' | 'bad_signature' };

const MAX_TOKEN_CHARS = 4096;

/** The URL Twilio was given and signed: the configured relay URL plus the request's query, as sent. */
export const relaySignedUrl = (rawQuery: string): string => `${voiceRuntimeRelayUrl()}${rawQuery ? `?${rawQuery}` : ''}`;

/** The token a relay URL's query carries (the first `token`), if any. */
export const relayToken = (rawQuery: string): string | undefined => new URLSearchParams(rawQuery).get('token') ?? undefined;

export async function admitRelayConnection(input: { rawQuery: string; signature: string | undefined; at: Date }): Promise<RelayAdmission> {
  const token = relayToken(input.rawQuery);
  if (!token) return { ok: false, status: 401, reason: 'missing_token' };
  if (token.length > MAX_TOKEN_CHARS) return { ok: false, status: 403, reason: 'invalid_token' };
  const checked = verifyStreamToken(await callTokenKey(), token, input.at);
  if (!checked.ok) return { ok: false, status: 403, reason: 'invalid_token' };
  const claims = checked.claims;
  const call = await getCall(claims.tenant_id, claims.call_id);
  if (!call || call.tenant_id !== claims.tenant_id) return { ok: false, status: 403, reason: 'unknown_call' };
  // The token is spent with its call plus the late-event window.
  if (!runtimeWindowOpen(call, input.at)) return { ok: false, status: 403, reason: 'invalid_token' };
  if (input.signature !== undefined) {
    const account = await getTelephonyAccount(claims.tenant_id, call.telephony_account_id);
    const authToken =
      account &&
      (await carrierAccess(account).then(
        (a) => a.credentials.authToken,
        () => undefined,
      ));
    if (!authToken || !verifyTwilioSignature({ authToken, signature: input.signature, url: relaySignedUrl(input.rawQuery), params: {} }))
      return { ok: false, status: 403, reason: 'bad_signature' };
  }
  return { ok: true, claims, token };
}
