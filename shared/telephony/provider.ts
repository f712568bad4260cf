/**
 * The port every carrier adapter implements (DESIGN §9). Handlers and workers speak to a
 * carrier only through it; later issues add buying/connecting numbers, placing calls,
 * hanging up and sending SMS.
 */
export interface CarrierCredentials {
  accountSid: string;
  authToken: string;
}

/** What the carrier says about an account whose credentials it was shown. */
export type AccountCheck =
  | { outcome: 'active'; cpsLimit: number | null }
  | { outcome: 'suspended' | 'closed' }
  | { outcome: 'refused' };

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

export interface TelephonyProvider {
  verifyAccount(): Promise<AccountCheck>;
  /** Buy `phoneE164` for the account and route its calls; NumberRefused if it cannot be had. */
  buyNumber(phoneE164: string, routing: NumberRouting): Promise<CarrierNumber>;
  /** Route a number the account already owns (by SID); NumberRefused if it has no such number. */
  connectNumber(sid: string, routing: NumberRouting): Promise<CarrierNumber>;
}
