/**
 * The port every carrier adapter implements (the design). Handlers and workers speak to a
 * carrier only through it: verify an account, buy or connect numbers, place, read and hang
 * up calls, send SMS.
 */
import type { CarrierCallState } from '../policy/call-state/carrier-call.js';

export interface CarrierCredentials {
  accountSid: string;
  authToken: string;
}

/** What the carrier says about an account whose credentials it was shown. */
export type AccountCheck = { outcome: 'active'; cpsLimit: number | null } | { outcome: 'suspended' | 'closed' } | { outcome: 'refused' };

/** The carrier could not answer (network, timeout) or answered with its own failure (5xx). */
export class CarrierUnavailable extends Error {
  constructor(
    readonly kind: 'unreachable' | 'carrier_error',
    message: string,
  ) {
    super(message);
  }
}

/** A number the carrier holds for the account, routed to our inbound webhooks. */
export interface CarrierNumber {
  sid: string;
  phoneE164: string;
}

/** Where the carrier sends a number's calls (our carrier routes). */
export interface NumberRouting {
  voiceUrl: string;
  statusCallbackUrl: string;
  /** Where the carrier posts texts to the number (see docs/decisions/messaging.md). */
  smsUrl?: string;
}

/** The carrier refused the number itself (taken, unknown SID, not the account's). */
export class NumberRefused extends Error {
  constructor(
    readonly reason: 'unavailable' | 'not_found',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The carrier refused a call or message as asked (bad number, a caller id the account does
 * not hold, a malformed request, an unknown call, credentials it no longer accepts):
 * retrying it unchanged cannot succeed.
 * `carrierCode` is the carrier's own (Twilio's error code), for the record.
 */
export class CarrierRefused extends Error {
  constructor(
    readonly reason: 'invalid_to' | 'caller_id_not_allowed' | 'invalid_request' | 'not_found' | 'credentials_refused',
    readonly carrierCode: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Twilio's StatusCallbackEvent names. */
export type CallProgressEvent = 'initiated' | 'ringing' | 'answered' | 'completed';

export interface PlaceCallInput {
  to: string;
  from: string;
  /** Where the carrier fetches the call's TwiML when it is answered (POST). */
  twimlUrl: string;
  /** Where the carrier posts signed status callbacks (POST). */
  statusCallbackUrl: string;
  /** Events to be told about; the final status is always posted. Default: all four. */
  statusCallbackEvents?: readonly CallProgressEvent[];
  /** Answering-machine detection: AnsweredBy on the answer and the TwiML fetch. */
  machineDetection?: 'Enable' | 'DetectMessageEnd' | null;
  /** Seconds to let it ring (Twilio: 1–600, default 60). */
  timeoutSeconds?: number;
}

export interface PlacedCall {
  sid: string;
  /**
   * The instant (epoch ms, the carrier's clock) the carrier stamped the dial — the instant its
   * cps ceiling counts — when it tells us to the millisecond: the sandbox carrier does; Twilio's
   * `date_created` has whole seconds, so its adapter leaves this undefined.
   */
  stampedAt?: number;
}

export interface SendSmsInput {
  to: string;
  from: string;
  body: string;
  statusCallbackUrl?: string;
}

export interface TelephonyProvider {
  verifyAccount(): Promise<AccountCheck>;
  /** Buy `phoneE164` for the account and route its calls; NumberRefused if it cannot be had. */
  buyNumber(phoneE164: string, routing: NumberRouting): Promise<CarrierNumber>;
  /** Route a number the account already owns (by SID); NumberRefused if it has no such number. */
  connectNumber(sid: string, routing: NumberRouting): Promise<CarrierNumber>;
  /**
   * Ask the carrier to dial. CarrierRefused when it will not (nothing was dialled);
   * CarrierUnavailable when it could not be asked or failed — an `unreachable` after the
   * request left may still have dialled, so callers never retry a dial blindly.
   */
  placeCall(input: PlaceCallInput): Promise<PlacedCall>;
  /**
   * What the carrier says about a call now (how the reconciler learns the end of a call
   * whose final callback never came). CarrierRefused `not_found` when the carrier knows no
   * such call on the account; CarrierUnavailable when it could not say.
   */
  fetchCall(callSid: string): Promise<CarrierCallState>;
  /** End a call (a call not yet answered is canceled); an ended call is left as it is. */
  hangUp(callSid: string): Promise<void>;
  sendSms(input: SendSmsInput): Promise<{ sid: string }>;
  /** Give a number back to the carrier (account deletion). A number the account no longer holds counts as released. */
  releaseNumber(sid: string): Promise<void>;
}
