import { describe, expect, it } from 'vitest';
import {
  type GatherState,
  gatherActionUrl,
  mintStreamToken,
  STREAM_TOKEN_TTL_SECONDS,
  type StreamClaims,
  signGatherParams,
  streamTokenTtlSeconds,
  verifyGatherParams,
  verifyStreamToken,
} from '../../shared/telephony/call-tokens.js';

const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 8);
const at = new Date('2026-03-08T12:00:00Z');
const later = (s: number) => new Date(at.getTime() + s * 1000);

const claims: StreamClaims = { tenant_id: 'ten_1', call_id: 'cal_1', agent_version_id: 'agv_1', number_id: 'pn_1', policy_version: 3 };
const state: GatherState = { tenant_id: 'ten_1', call_id: 'cal_1', number_id: 'pn_1', policy_version: 3, step_path: 'open.0.b1.0', invalid_attempts: 1 };

/** Swap one character of the middle (payload) segment for another base64url character. */
const flipPayload = (token: string) => {
  const [v, p, s] = token.split('.') as [string, string, string];
  const i = Math.floor(p.length / 2);
  return `${v}.${p.slice(0, i)}${p[i] === 'A' ? 'B' : 'A'}${p.slice(i + 1)}.${s}`;
};

describe('stream tokens', () => {
  it('round-trip the bound claims until they expire', () => {
    const token = mintStreamToken(key, claims, at, 120);
    expect(verifyStreamToken(key, token, at)).toEqual({ ok: true, claims: { ...claims, exp: at.getTime() / 1000 + 120 } });
    expect(verifyStreamToken(key, token, later(119)).ok).toBe(true);
    expect(verifyStreamToken(key, token, later(120))).toEqual({ ok: false, reason: 'expired' });
  });

  it('carry no policy version when the call is not answered by a policy', () => {
    const { policy_version: _omitted, ...agentRoute } = claims;
    const r = verifyStreamToken(key, mintStreamToken(key, agentRoute, at), at);
    expect(r.ok && r.claims.policy_version).toBe(undefined);
  });

  it('refuse a tampered payload, another key and malformed strings', () => {
    const token = mintStreamToken(key, claims, at);
    expect(verifyStreamToken(key, flipPayload(token), at)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyStreamToken(otherKey, token, at)).toEqual({ ok: false, reason: 'bad_signature' });
    const forged = Buffer.from(JSON.stringify({ ...claims, tenant_id: 'ten_2', exp: 9e9 })).toString('base64url');
    expect(verifyStreamToken(key, `v1.${forged}.${token.split('.')[2]}`, at).ok).toBe(false);
    for (const bad of ['', 'v1', 'v1..', 'v2.a.b', `${token}.x`, 'v1.a+b.c', token.replace('v1.', 'v1.!')])
      expect(verifyStreamToken(key, bad, at)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('live 4 h by default (the runtime reports the whole call with it); STREAM_TOKEN_TTL_SECONDS may set 60 s…24 h', () => {
    expect(STREAM_TOKEN_TTL_SECONDS).toBe(14_400);
    const r = verifyStreamToken(key, mintStreamToken(key, claims, at), at);
    expect(r.ok && r.claims.exp - at.getTime() / 1000).toBe(14_400);
    expect(streamTokenTtlSeconds(undefined)).toBe(14_400);
    expect(streamTokenTtlSeconds('3600')).toBe(3600);
    for (const bad of ['', '59', '86401', '-5', '1e4', 'abc']) expect(streamTokenTtlSeconds(bad), bad).toBe(14_400);
  });

  it('refuse a short key', () => {
    expect(() => mintStreamToken(Buffer.alloc(16), claims, at)).toThrow(/32 bytes/);
  });
});

describe('signed Gather action URLs', () => {
  it('round-trip the state through a URL until it expires', () => {
    const url = gatherActionUrl('https://api.example.com/carrier/twilio/gather', key, state, at, 900);
    expect(url.startsWith('https://api.example.com/carrier/twilio/gather?tenant_id=ten_1&call_id=cal_1')).toBe(true);
    const query = new URL(url).searchParams;
    expect(verifyGatherParams(key, query, at)).toEqual({ ok: true, claims: { ...state, exp: at.getTime() / 1000 + 900 } });
    expect(verifyGatherParams(key, Object.fromEntries(query), later(899)).ok).toBe(true);
    expect(verifyGatherParams(key, query, later(900))).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    ['policy_version', '4'],
    ['step_path', 'open.0.b2.0'],
    ['invalid_attempts', '0'],
    ['call_id', 'cal_2'],
    ['number_id', 'pn_2'],
    ['tenant_id', 'ten_2'],
    ['exp', '99999999999'],
  ])('refuse a URL whose %s was changed', (field, value) => {
    const params = signGatherParams(key, state, at);
    params.set(field, value);
    expect(verifyGatherParams(key, params, at)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuse another key, a missing field or signature, and a stream token signature', () => {
    const params = signGatherParams(key, state, at);
    expect(verifyGatherParams(otherKey, params, at)).toEqual({ ok: false, reason: 'bad_signature' });
    for (const f of ['sig', 'step_path', 'exp']) {
      const p = new URLSearchParams(params);
      p.delete(f);
      expect(verifyGatherParams(key, p, at)).toEqual({ ok: false, reason: 'malformed' });
    }
    const p = new URLSearchParams(params);
    p.set('sig', mintStreamToken(key, claims, at).split('.')[2]!);
    expect(verifyGatherParams(key, p, at)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuse well-signed state that is not a step path or a count (defence in depth)', () => {
    const p = signGatherParams(key, { ...state, step_path: 'nowhere' }, at);
    expect(verifyGatherParams(key, p, at)).toEqual({ ok: false, reason: 'malformed' });
  });
});
