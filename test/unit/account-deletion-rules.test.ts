import { describe, expect, it } from 'vitest';
import { isRetained, numberHash, RETAINED_KINDS, suppressedNumber, suppressionHashKey, tenantTombstone } from '../../shared/accounts/retention.js';
import { passwordProblem } from '../../shared/auth/passwords.js';
import { hashSecret, mintToken, parseToken } from '../../shared/crypto/opaque-token.js';
import {
  confirmationEffect,
  confirmationPhrase,
  GRACE_PERIOD_DAYS,
  maskEmail,
  phraseMatches,
  scheduledFor,
} from '../../shared/policy/accounts/deletion-rules.js';
import {
  clearedSessionCookie,
  normalizeOrigin,
  originAllowed,
  readSessionCookie,
  SESSION_COOKIE,
  sessionActive,
  sessionCookie,
} from '../../shared/policy/auth/session-rules.js';
import { retryAfterSeconds, THROTTLES, windowStart } from '../../shared/policy/auth/throttle-rules.js';

const T = 'ten_01JZZZZZZZZZZZZZZZZZZZZZZZ';
const U = 'usr_01JZZZZZZZZZZZZZZZZZZZZZZZ';

describe('deletion rules', () => {
  it('schedules after the 14-day grace period and asks for the exact phrase', () => {
    expect(GRACE_PERIOD_DAYS).toBe(14);
    expect(scheduledFor(new Date('2026-11-25T00:00:00Z')).toISOString()).toBe('2026-12-09T00:00:00.000Z');
    expect(confirmationPhrase('Acme Dental')).toBe('delete Acme Dental');
    expect(phraseMatches('delete Acme Dental', 'Acme Dental')).toBe(true);
    for (const wrong of ['Delete Acme Dental', 'delete acme dental', 'delete Acme Dental ', ' delete Acme Dental', 'delete Acme'])
      expect(phraseMatches(wrong, 'Acme Dental')).toBe(false);
  });

  it('masks a mailbox and tells create from reconfirm from refuse', () => {
    expect(maskEmail('owner@acme.test')).toBe('o***@acme.test');
    expect(maskEmail('nope')).toBe('***');
    expect(['none', 'cancelled', 'pending', 'deleting', 'completed'].map((s) => confirmationEffect(s as never))).toEqual([
      'create',
      'create',
      'reconfirm',
      'refuse',
      'refuse',
    ]);
  });
});

describe('retention', () => {
  it('keeps only the named kinds in the tenant’s main partition', () => {
    const keep = [
      { pk: `TENANT#${T}`, sk: 'INVOICE#inv_1' },
      { pk: `TENANT#${T}`, sk: 'SUPPRESSION_HASH#ab' },
      { pk: `TENANT#${T}`, sk: 'DELETION_REQUEST' },
      { pk: `TENANT#${T}`, sk: 'TENANT' },
    ];
    const drop = [
      { pk: `TENANT#${T}`, sk: 'USER#usr_1' },
      { pk: `TENANT#${T}`, sk: 'USAGE#2026-11' },
      { pk: `TENANT#${T}`, sk: 'DELETION_PROOF' },
      { pk: `TENANT#${T}#CONTACT#con_1`, sk: 'CONTACT' },
      { pk: `TENANT#${T}#INVOICES`, sk: 'INVOICE#x' },
      { pk: `TENANT#ten_other`, sk: 'INVOICE#x' },
    ];
    for (const k of keep) expect(isRetained(k, T), JSON.stringify(k)).toBe(true);
    for (const d of drop) expect(isRetained(d, T), JSON.stringify(d)).toBe(false);
    expect(RETAINED_KINDS.map((k) => k.name)).toEqual(['invoice', 'suppression_hash', 'deletion_request', 'tenant_tombstone']);
  });

  it('reads a suppressed number from its active entry and keeps it only as a keyed hash', () => {
    expect(suppressedNumber({ pk: `TENANT#${T}#SUPPRESSION#+14155550100`, sk: 'ACTIVE' }, T)).toBe('+14155550100');
    expect(suppressedNumber({ pk: `TENANT#${T}#SUPPRESSION#+14155550100`, sk: 'ENTRY#sup_1' }, T)).toBeUndefined();
    const h = numberHash('k'.repeat(32), '+14155550100');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).not.toBe(numberHash('j'.repeat(32), '+14155550100'));
    expect(tenantTombstone(T, '2026-01-01T00:00:00.000Z', new Date('2026-12-09T00:00:00Z'))).toMatchObject({
      name: '',
      status: 'deleted',
      deleted_at: '2026-12-09T00:00:00.000Z',
    });
  });
});

describe('one-use tokens and session cookies', () => {
  it('mints 256-bit secrets, stores only their hash, and parses only well-formed tokens', () => {
    const { token, hash } = mintToken('vad', [T]);
    expect(token).toMatch(/^vad_ten_[0-9A-Z]{26}\.[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.split('.')[1]!, 'base64url')).toHaveLength(32);
    expect(parseToken('vad', token, 1)).toEqual({ scope: [T], hash });
    expect(hash).toBe(hashSecret(token.split('.')[1]!));
    expect(parseToken('val', token, 1)).toBeUndefined();
    expect(parseToken('vad', token, 2)).toBeUndefined();
    expect(parseToken('vad', `${token}x`, 1)).toBeUndefined();
    expect(parseToken('vad', `vad_ten_x#y.${token.split('.')[1]}`, 1)).toBeUndefined();
    expect(parseToken('val', mintToken('val', [T, U]).token, 2)?.scope).toEqual([T, U]);
    expect(mintToken('vad', [T]).token).not.toBe(token);
  });

  it('builds the cookie with every attribute and reads exactly one session cookie', () => {
    expect(sessionCookie('v')).toBe(`${SESSION_COOKIE}=v; Max-Age=43200; Path=/; Secure; HttpOnly; SameSite=Strict`);
    expect(clearedSessionCookie()).toMatch(/Max-Age=0/);
    expect(readSessionCookie([`a=b`, `${SESSION_COOKIE}=v1`])).toBe('v1');
    expect(readSessionCookie(undefined, `x=1; ${SESSION_COOKIE}=v2`)).toBe('v2');
    expect(readSessionCookie([`${SESSION_COOKIE}=v1`, `${SESSION_COOKIE}=v2`])).toBeUndefined();
    expect(readSessionCookie(['session=v1'])).toBeUndefined();
  });

  it('expires sessions 30 idle minutes after the last use or 12 hours after sign-in', () => {
    const s = { created_at: '2026-11-25T00:00:00.000Z', last_used_at: '2026-11-25T11:50:00.000Z' };
    expect(sessionActive(s, new Date('2026-11-25T11:59:59Z'))).toBe(true);
    expect(sessionActive(s, new Date('2026-11-25T12:00:00Z'))).toBe(false);
    expect(sessionActive({ ...s, last_used_at: s.created_at }, new Date('2026-11-25T00:29:59Z'))).toBe(true);
    expect(sessionActive({ ...s, last_used_at: s.created_at }, new Date('2026-11-25T00:30:00Z'))).toBe(false);
  });

  it('matches Origin exactly: scheme, host and port', () => {
    expect(originAllowed('https://dash.acme.test', 'https://dash.acme.test/')).toBe(true);
    expect(normalizeOrigin('https://Dash.Acme.test:443/')).toBe('https://dash.acme.test');
    for (const bad of [
      undefined,
      'null',
      'http://dash.acme.test',
      'https://dash.acme.test:8443',
      'https://dash.acme.test.evil.example',
      'https://evil.example',
    ]) {
      expect(originAllowed(bad, 'https://dash.acme.test'), String(bad)).toBe(false);
    }
    expect(originAllowed('https://dash.acme.test', undefined)).toBe(false);
  });
});

describe('throttle windows and password rules', () => {
  it('counts in fixed windows and says how long to wait', () => {
    const limit = THROTTLES.link_account;
    const at = new Date('2026-11-25T00:10:00Z');
    expect(windowStart(at, limit)).toBe(Date.parse('2026-11-25T00:00:00Z') / 1000);
    expect(retryAfterSeconds(at, limit)).toBe(300);
  });

  it('asks for 12 to 256 characters', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/);
    expect(passwordProblem('a'.repeat(12))).toBeUndefined();
    expect(passwordProblem('a'.repeat(257))).toMatch(/at most 256/);
  });
});

describe('kept suppression hashes', () => {
  it('are keyed by an HKDF-derived key with its own label, not the API key pepper itself', () => {
    const pepper = 'p'.repeat(64);
    const key = suppressionHashKey(pepper);
    expect(key).toHaveLength(32);
    expect(key.equals(suppressionHashKey(pepper))).toBe(true);
    expect(key.equals(Buffer.from(pepper))).toBe(false);
    expect(key.equals(suppressionHashKey('q'.repeat(64)))).toBe(false);
    expect(numberHash(key, '+14155550100')).not.toBe(numberHash(pepper, '+14155550100'));
  });
});
