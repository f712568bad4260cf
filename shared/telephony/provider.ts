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

export interface TelephonyProvider {
  verifyAccount(): Promise<AccountCheck>;
}
