import { createHmac, timingSafeEqual } from 'node:crypto';
// Stripe's own library, as a tenant would use it: our signatures must pass its verifier.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { envelopeBody, envelopeOf, WEBHOOK_API_VERSION } from '../../shared/policy/webhooks/envelope.js';
import { deliveryHeaders, newSigningSecret, SIGNATURE_HEADER, signatureHeader } from '../../shared/schemas/webhook-signature.js';

const stripe = new Stripe('sk_test_x'); // constructEvent is pure: no request is made
const event = {
  id: 'evt_01J9Z8Y7X6W5V4T3S2R1Q0P9N8',
  type: 'call.completed',
  created_at: '2025-05-01T12:00:00.000Z',
  data: { call_id: 'call_1', outcome: { status: 'answered', duration_s: 42 }, agent: { version: 3, id: 'agt_1' } },
};
const body = envelopeBody(envelopeOf(event));
const oldSecret = 'whsec_oldOLDold0123456789abcdefghijklmnopqrs';
const newSecret = 'whsec_newNEWnew0123456789abcdefghijklmnopqrs';
const nowS = () => Math.floor(Date.now() / 1000);

/** An independent verifier, written from the scheme's description alone. */
function verifyIndependently(payload: string, header: string, secret: string): boolean {
  let t: string | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.split('=', 2);
    if (k === 't') t = v;
    if (k === 'v1' && v) v1.push(v);
  }
  if (!t || !/^\d+$/.test(t)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${payload}`).digest();
  return v1.some((hex) => {
    const got = Buffer.from(hex, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

describe('webhook envelope', () => {
  it('has exactly id, type, created_at, api_version and data, serialised as sorted compact JSON', () => {
    const envelope = envelopeOf({ ...event, tenant_id: 'ten_secret' } as typeof event);
    expect(Object.keys(envelope).sort()).toEqual(['api_version', 'created_at', 'data', 'id', 'type']);
    expect(envelope.api_version).toBe(WEBHOOK_API_VERSION);
    expect(envelopeBody(envelope)).not.toContain('ten_secret');
    expect(body).toBe(
      '{"api_version":"0.1.0","created_at":"2025-05-01T12:00:00.000Z",' +
        '"data":{"agent":{"id":"agt_1","version":3},"call_id":"call_1","outcome":{"duration_s":42,"status":"answered"}},' +
        '"id":"evt_01J9Z8Y7X6W5V4T3S2R1Q0P9N8","type":"call.completed"}',
    );
    expect(JSON.parse(body)).toEqual(envelope);
  });
});

describe('Service-Signature', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> with one v1 per secret, in order', () => {
    const header = signatureHeader(body, [oldSecret, newSecret], 1_700_000_000);
    const mac = (s: string) => createHmac('sha256', s).update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${mac(oldSecret)},v1=${mac(newSecret)}`);
    expect(signatureHeader(body, [newSecret], 1_700_000_000)).toBe(`t=1700000000,v1=${mac(newSecret)}`);
  });

  it('refuses to sign with no secret', () => {
    expect(() => signatureHeader(body, [], nowS())).toThrow(/secret/);
  });

  it("passes Stripe's constructEvent with either secret during a rotation overlap", () => {
    const header = signatureHeader(body, [oldSecret, newSecret], nowS());
    for (const secret of [oldSecret, newSecret]) {
      const parsed = stripe.webhooks.constructEvent(body, header, secret);
      expect(parsed.id).toBe(event.id);
      expect(parsed.type).toBe(event.type);
    }
    expect(() => stripe.webhooks.constructEvent(body, header, 'whsec_someoneElse')).toThrow(/No signatures found matching/);
  });

  it('is refused by Stripe for the old secret once only the new one signs, and for a tampered body', () => {
    const onlyNew = signatureHeader(body, [newSecret], nowS());
    expect(() => stripe.webhooks.constructEvent(body, onlyNew, oldSecret)).toThrow(/No signatures found matching/);
    expect(stripe.webhooks.constructEvent(body, onlyNew, newSecret).id).toBe(event.id);
    const tampered = body.replace('"duration_s":42', '"duration_s":43');
    expect(tampered).not.toBe(body);
    expect(() => stripe.webhooks.constructEvent(tampered, signatureHeader(body, [oldSecret, newSecret], nowS()), oldSecret)).toThrow(
      /No signatures found matching/,
    );
  });

  it('is refused by Stripe when the timestamp is older than its tolerance', () => {
    const stale = signatureHeader(body, [newSecret], nowS() - 3600);
    expect(() => stripe.webhooks.constructEvent(body, stale, newSecret)).toThrow(/tolerance/);
  });

  it('verifies with an independent implementation, with the same accept/refuse answers', () => {
    const both = signatureHeader(body, [oldSecret, newSecret], nowS());
    const onlyNew = signatureHeader(body, [newSecret], nowS());
    expect(verifyIndependently(body, both, oldSecret)).toBe(true);
    expect(verifyIndependently(body, both, newSecret)).toBe(true);
    expect(verifyIndependently(body, onlyNew, oldSecret)).toBe(false);
    expect(verifyIndependently(body, onlyNew, newSecret)).toBe(true);
    expect(verifyIndependently(`${body} `, both, oldSecret)).toBe(false);
    // A moved timestamp invalidates every v1.
    expect(
      verifyIndependently(
        body,
        both.replace(/^t=(\d+)/, (_, t: string) => `t=${Number(t) + 1}`),
        oldSecret,
      ),
    ).toBe(false);
  });

  it('makes fresh whsec_ secrets of 32 random bytes, which sign and verify', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(stripe.webhooks.constructEvent(body, signatureHeader(body, [a], nowS()), a).id).toBe(event.id);
  });
});

describe('delivery headers', () => {
  it('carry the content type, a signature for now, the event id and type, and a user agent', () => {
    const envelope = envelopeOf(event);
    const now = new Date('2025-05-01T12:00:05.999Z');
    const headers = deliveryHeaders(envelope, body, [oldSecret, newSecret], now);
    expect(headers).toEqual({
      'content-type': 'application/json',
      [SIGNATURE_HEADER]: signatureHeader(body, [oldSecret, newSecret], Math.floor(now.getTime() / 1000)),
      'Service-Event-Id': event.id,
      'Service-Event-Type': event.type,
      'user-agent': 'VoiceControl-Webhooks/0.1',
    });
    expect(SIGNATURE_HEADER).toBe('Service-Signature');
    expect(headers[SIGNATURE_HEADER]).toMatch(/^t=1746100805,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  });
});
