/**
 * The voice runtime's credential (manifest auth `stream_token`): the signed Stream token our
 * TwiML handed to the carrier (shared/telephony/call-tokens.ts), sent back as
 * `Authorization: Bearer <token>`. It binds one tenant and one call:
 *   - no Authorization header, or not a Bearer credential → 401;
 *   - a Bearer credential that is not a valid, unexpired Stream token for the call the path
 *     names (another call's token, a tampered or expired one, a tenant API key) → 403.
 * Checked before anything is written; the claims become the request's `stream`. The token
 * lives as long as its call plus the late-event window (shared/policy/call-state/runtime-window.ts): once
 * that has passed, a genuine token for that call is 409 `call_ended` on every runtime route.
 * A route may ask for one read of the token's tenant beside that check (`alongside`): it starts
 * only once the signature and the call are proven, so the two reads are one round trip, and its
 * result is handed over only when the window is open (a spent token still learns nothing).
 */
import { now } from '../clock.js';
import { conflict, DomainError, forbidden } from '../errors.js';
import { CALL_ENDED, callEndedDetail, runtimeWindowOpen } from '../policy/call-state/runtime-window.js';
import { getCallTiming } from '../repositories/call-timing.js';
import { callTokenKey } from '../telephony/call-token-key.js';
import { type VerifiedStreamClaims, verifyStreamToken } from '../telephony/call-tokens.js';
import { bearerToken } from './api-key-token.js';

export type StreamPrincipal = VerifiedStreamClaims;

const missing = () =>
  new DomainError('unauthorized', 'unauthorized', "Missing call token: send the Stream token as 'Authorization: Bearer <token>'", {}, { challenge: 'Bearer' });

export async function authenticateStreamToken<A = undefined>(
  authorization: string | undefined,
  pathCallId: string | undefined,
  at = now(),
  alongside?: (claims: StreamPrincipal) => Promise<A>,
): Promise<{ claims: StreamPrincipal; alongside: A | undefined }> {
  const token = bearerToken(authorization);
  if (!token) throw missing();
  // Every refusal of a presented credential reads the same, whatever the reason (built only when refusing: most requests are not).
  const refused = () => forbidden('The call token is not valid for this call');
  if (token.length > 4096) throw refused();
  const checked = verifyStreamToken(await callTokenKey(), token, at);
  if (!checked.ok) throw refused();
  if (!pathCallId || checked.claims.call_id !== pathCallId) throw refused();
  const claims = checked.claims;
  // An unknown call is the route's 404; a call that ended more than the window ago spends the token.
  // The route's read settles either way, so a spent token is call_ended whatever that read did.
  const also = alongside?.(claims).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const call = await getCallTiming(claims.tenant_id, claims.call_id);
  if (call && !runtimeWindowOpen(call, at)) throw conflict(CALL_ENDED, callEndedDetail(call));
  const read = await also;
  if (read && !read.ok) throw read.error;
  return { claims, alongside: read?.value };
}
