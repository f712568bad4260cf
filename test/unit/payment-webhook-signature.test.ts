/**
 * The payment provider's webhook check (shared/billing/webhook-signature.ts) against headers
 * made by the `stripe` library's own signer: what Stripe signs verifies; another secret, a
 * changed body, a stale or missing timestamp, or no v1 signature does not.
 */
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_TOLERANCE_SECONDS, verifyProviderEvent } from '../../shared/billing/webhook-signature.js';

const secret = 'whsec_test_0123456789abcdef';
const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid', data: { object: { id: 'in_1', object: 'invoice' } } });
const signer = new Stripe('sk_test_x').webhooks;
const signedAt = 1_790_000_000;
const at = (seconds: number) => new Date(seconds * 1000);
const header = (opts: { payload?: string; secret?: string; timestamp?: number } = {}) =>
  signer.generateTestHeaderString({ payload: opts.payload ?? payload, secret: opts.secret ?? secret, timestamp: opts.timestamp ?? signedAt });

describe('verifyProviderEvent', () => {
  it('accepts what Stripe signs, up to the tolerance after the timestamp', () => {
    expect(verifyProviderEvent(payload, header(), secret, at(signedAt)).type).toBe('invoice.paid');
    expect(verifyProviderEvent(payload, header(), secret, at(signedAt + SIGNATURE_TOLERANCE_SECONDS)).id).toBe('evt_1');
  });

  it('accepts the matching one of several v1 signatures (a secret being rolled)', () => {
    const other = header({ secret: 'whsec_other_0123456789' })
      .split(',')
      .find((p) => p.startsWith('v1='))!;
    expect(verifyProviderEvent(payload, `${header()},${other}`, secret, at(signedAt)).id).toBe('evt_1');
    expect(verifyProviderEvent(payload, `${header({ secret: 'whsec_other_0123456789' })},${header().split(',')[1]}`, secret, at(signedAt)).id).toBe('evt_1');
  });

  it('refuses another secret, a changed body, a stale timestamp, a changed timestamp', () => {
    expect(() => verifyProviderEvent(payload, header({ secret: 'whsec_other_0123456789' }), secret, at(signedAt))).toThrow();
    expect(() => verifyProviderEvent(payload.replace('paid', 'voided'), header(), secret, at(signedAt))).toThrow();
    expect(() => verifyProviderEvent(payload, header(), secret, at(signedAt + SIGNATURE_TOLERANCE_SECONDS + 1))).toThrow();
    expect(() => verifyProviderEvent(payload, header().replace(`t=${signedAt}`, `t=${signedAt + 1}`), secret, at(signedAt))).toThrow();
  });

  it('refuses a header without a timestamp or a v1 signature, and a body that is no event', () => {
    expect(() => verifyProviderEvent(payload, header().replace(/t=\d+,/, ''), secret, at(signedAt))).toThrow();
    expect(() => verifyProviderEvent(payload, header().replace('v1=', 'v0='), secret, at(signedAt))).toThrow();
    expect(() => verifyProviderEvent(payload, '', secret, at(signedAt))).toThrow();
    const notEvent = JSON.stringify({ hello: 'world' });
    expect(() => verifyProviderEvent(notEvent, header({ payload: notEvent }), secret, at(signedAt))).toThrow();
  });
});
