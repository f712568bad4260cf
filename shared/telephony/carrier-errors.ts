/** How a carrier's own failure reaches an API client: the request changed nothing, retry later. */
import { HttpError } from '../http/errors.js';
import type { CarrierUnavailable } from './provider.js';

export const carrierFailure = (err: CarrierUnavailable, unchanged: string): HttpError =>
  err.kind === 'unreachable'
    ? new HttpError(503, 'carrier_unreachable', `The carrier could not be reached; ${unchanged}. Retry later.`)
    : new HttpError(502, 'carrier_error', `The carrier answered with an error of its own; ${unchanged}. Retry later.`);
