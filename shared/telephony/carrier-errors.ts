/** How a carrier's own failure reaches an API client: the request changed nothing, retry later. */
import { DomainError } from '../errors.js';
import type { CarrierUnavailable } from './provider.js';

export const carrierFailure = (err: CarrierUnavailable, unchanged: string): DomainError =>
  err.kind === 'unreachable'
    ? new DomainError('unavailable', 'carrier_unreachable', `The carrier could not be reached; ${unchanged}. Retry later.`)
    : new DomainError('upstream_failed', 'carrier_error', `The carrier answered with an error of its own; ${unchanged}. Retry later.`);
