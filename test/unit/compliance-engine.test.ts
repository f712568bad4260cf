/**
 * The compliance engine, row by row of its rule table (docs/decisions/calls-and-compliance.md), at the boundaries. Times are UTC;
 * comments give the callee's local time (November 2026: EST −5, CST −6, PST −8;
 * 2026-11-22 is a Sunday, 2026-11-23 a Monday).
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../shared/policy/compliance/evaluate.js';
import { type ComplianceDecision, RULE_SET_VERSION } from '../../shared/policy/compliance/types.js';
import { type Change, informational, inputs, marketing, pewc, SELLER, SUBJECT, unscrubbable } from '../support/compliance-fixtures.js';

interface Case {
  name: string;
  change?: Change;
  at: string;
  outcome: ComplianceDecision['outcome'];
  codes?: string[];
  disposition?: ComplianceDecision['disposition'];
  next?: string;
}

const run = (c: Case) => evaluate(inputs(c.change), new Date(c.at));

function check(c: Case) {
  const d = run(c);
  expect(d.outcome).toBe(c.outcome);
  expect(d.reasons.map((r) => r.code)).toEqual(c.codes ?? []);
  expect(d.disposition).toBe(c.outcome === 'block' ? c.disposition : null);
  expect(d.next_permitted_at).toBe(c.outcome === 'defer' ? c.next : null);
  for (const r of d.reasons) expect(r.message.length).toBeGreaterThan(20);
  if (c.outcome === 'defer') {
    // Earliest: permitted at next_permitted_at, still deferred a millisecond before it.
    const next = Date.parse(c.next!);
    expect(evaluate(inputs(c.change), new Date(next)).outcome).toBe('allow');
    expect(evaluate(inputs(c.change), new Date(next - 1)).outcome).toBe('defer');
  }
}

const FL2 = '+18505550123'; // US-FL, America/Chicago + America/New_York
const TX = '+17135550123'; // US-TX, America/Chicago
const MON_10AM_NY = '2026-11-23T15:00:00Z';

describe('quiet_hours: 08:00–21:00 local, start included, end excluded', () => {
  it.each<Case>([
    { name: '07:59', at: '2026-11-23T12:59:00Z', outcome: 'defer', codes: ['quiet_hours'], next: '2026-11-23T13:00:00.000Z' },
    { name: '08:00', at: '2026-11-23T13:00:00Z', outcome: 'allow' },
    { name: '20:59', at: '2026-11-24T01:59:00Z', outcome: 'allow' },
    { name: '21:00', at: '2026-11-24T02:00:00Z', outcome: 'defer', codes: ['quiet_hours'], next: '2026-11-24T13:00:00.000Z' },
    {
      name: '07:59 informational',
      change: { profile: informational },
      at: '2026-11-23T12:59:59Z',
      outcome: 'defer',
      codes: ['quiet_hours'],
      next: '2026-11-23T13:00:00.000Z',
    },
  ])('$name', check);

  it('says where and when', () => {
    const d = evaluate(inputs(), new Date('2026-11-23T12:59:00Z'));
    expect(d.reasons).toEqual([
      {
        code: 'quiet_hours',
        zone: 'America/New_York',
        local_time: '07:59',
        weekday: 'Monday',
        window: { start: '08:00', end: '21:00' },
        message: 'It is 07:59 in America/New_York, outside the legal calling hours 08:00–21:00: the call waits until next_permitted_at',
      },
    ]);
    expect(d.callee).toEqual({ zones: ['America/New_York'], states: ['US-NY'] });
  });
});

describe('DST change days in America/New_York', () => {
  it.each<Case>([
    {
      name: 'spring: Saturday 21:00 EST → Sunday 08:00 EDT',
      at: '2026-03-08T02:00:00Z',
      outcome: 'defer',
      codes: ['quiet_hours'],
      next: '2026-03-08T12:00:00.000Z',
    },
    { name: 'spring: 01:30 EST, before the gap', at: '2026-03-08T06:30:00Z', outcome: 'defer', codes: ['quiet_hours'], next: '2026-03-08T12:00:00.000Z' },
    { name: 'spring: 07:59 EDT', at: '2026-03-08T11:59:00Z', outcome: 'defer', codes: ['quiet_hours'], next: '2026-03-08T12:00:00.000Z' },
    { name: 'spring: 08:00 EDT', at: '2026-03-08T12:00:00Z', outcome: 'allow' },
    { name: 'spring: 20:59 EDT', at: '2026-03-09T00:59:00Z', outcome: 'allow' },
    { name: 'spring: 21:00 EDT', at: '2026-03-09T01:00:00Z', outcome: 'defer', codes: ['quiet_hours'], next: '2026-03-09T12:00:00.000Z' },
    {
      name: 'fall: Saturday 21:00 EDT → Sunday 08:00 EST',
      at: '2026-11-01T01:00:00Z',
      outcome: 'defer',
      codes: ['quiet_hours'],
      next: '2026-11-01T13:00:00.000Z',
    },
    { name: 'fall: first 01:30 (EDT)', at: '2026-11-01T05:30:00Z', outcome: 'defer', codes: ['quiet_hours'], next: '2026-11-01T13:00:00.000Z' },
    { name: 'fall: second 01:30 (EST)', at: '2026-11-01T06:30:00Z', outcome: 'defer', codes: ['quiet_hours'], next: '2026-11-01T13:00:00.000Z' },
    { name: 'fall: 07:59 EST', at: '2026-11-01T12:59:00Z', outcome: 'defer', codes: ['quiet_hours'], next: '2026-11-01T13:00:00.000Z' },
    { name: 'fall: 08:00 EST', at: '2026-11-01T13:00:00Z', outcome: 'allow' },
    {
      name: 'TX Sunday window on spring day: 01:30 CST → 12:00 CDT',
      change: { phone: TX },
      at: '2026-03-08T07:30:00Z',
      outcome: 'defer',
      codes: ['quiet_hours', 'state_quiet_hours'],
      next: '2026-03-08T17:00:00.000Z',
    },
  ])('$name', check);
});

describe('callee zones: area codes spanning zones, contact timezones', () => {
  it.each<Case>([
    {
      name: '850: New York open (08:30), Chicago closed (07:30)',
      change: { phone: FL2, profile: informational },
      at: '2026-11-23T13:30:00Z',
      outcome: 'defer',
      codes: ['quiet_hours'],
      next: '2026-11-23T14:00:00.000Z',
    },
    {
      name: '850: Chicago open (20:30), New York closed (21:30)',
      change: { phone: FL2, profile: informational },
      at: '2026-11-24T02:30:00Z',
      outcome: 'defer',
      codes: ['quiet_hours'],
      next: '2026-11-24T14:00:00.000Z',
    },
    { name: '850: both open', change: { phone: FL2, profile: informational }, at: '2026-11-23T14:00:00Z', outcome: 'allow' },
    {
      name: '850 marketing: FL 20:00 in New York while Chicago is 19:00',
      change: { phone: FL2 },
      at: '2026-11-24T01:00:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-24T14:00:00.000Z',
    },
    {
      name: '212 with a Los Angeles timezone: 05:30 there',
      change: { timezone: 'America/Los_Angeles' },
      at: '2026-11-23T13:30:00Z',
      outcome: 'defer',
      codes: ['quiet_hours'],
      next: '2026-11-23T16:00:00.000Z',
    },
  ])('$name', check);

  it('names the closed zone and lists every zone, the contact timezone first', () => {
    const two = evaluate(inputs({ phone: FL2, profile: informational }), new Date('2026-11-23T13:30:00Z'));
    expect(two.reasons[0]).toMatchObject({ code: 'quiet_hours', zone: 'America/Chicago', local_time: '07:30' });
    expect(two.callee).toEqual({ zones: ['America/Chicago', 'America/New_York'], states: ['US-FL'] });
    const la = evaluate(inputs({ timezone: 'America/Los_Angeles' }), new Date('2026-11-23T13:30:00Z'));
    expect(la.reasons[0]).toMatchObject({ zone: 'America/Los_Angeles', local_time: '05:30' });
    expect(la.callee.zones).toEqual(['America/Los_Angeles', 'America/New_York']);
  });

  it('callee states: US-XX jurisdictions (any case) plus the area code state', () => {
    const d = evaluate(inputs({ jurisdictions: ['US-TX', 'EU-DE', 'us-fl', 'Texas'] }), new Date(MON_10AM_NY));
    expect(d.callee.states).toEqual(['US-TX', 'US-FL', 'US-NY']);
  });
});

describe('state_quiet_hours (marketing)', () => {
  it.each<Case>([
    {
      name: 'TX Sunday 11:59',
      change: { phone: TX },
      at: '2026-11-22T17:59:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-22T18:00:00.000Z',
    },
    { name: 'TX Sunday 12:00', change: { phone: TX }, at: '2026-11-22T18:00:00Z', outcome: 'allow' },
    { name: 'TX Sunday 20:59', change: { phone: TX }, at: '2026-11-23T02:59:00Z', outcome: 'allow' },
    {
      name: 'TX Sunday 21:00 → Monday 09:00',
      change: { phone: TX },
      at: '2026-11-23T03:00:00Z',
      outcome: 'defer',
      codes: ['quiet_hours', 'state_quiet_hours'],
      next: '2026-11-23T15:00:00.000Z',
    },
    {
      name: 'TX Monday 08:59',
      change: { phone: TX },
      at: '2026-11-23T14:59:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-23T15:00:00.000Z',
    },
    { name: 'TX Monday 09:00', change: { phone: TX }, at: '2026-11-23T15:00:00Z', outcome: 'allow' },
    { name: 'TX Sunday 11:00 informational', change: { phone: TX, profile: informational }, at: '2026-11-22T17:00:00Z', outcome: 'allow' },
    { name: 'FL 19:59', change: { phone: '+13055550123' }, at: '2026-11-24T00:59:00Z', outcome: 'allow' },
    {
      name: 'FL 20:00',
      change: { phone: '+13055550123' },
      at: '2026-11-24T01:00:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-24T13:00:00.000Z',
    },
    { name: 'FL 20:00 informational', change: { phone: '+13055550123', profile: informational }, at: '2026-11-24T01:00:00Z', outcome: 'allow' },
    { name: 'OK 19:59', change: { phone: '+14055550123' }, at: '2026-11-24T01:59:00Z', outcome: 'allow' },
    {
      name: 'OK 20:00',
      change: { phone: '+14055550123' },
      at: '2026-11-24T02:00:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-24T14:00:00.000Z',
    },
    {
      name: 'MD 20:00',
      change: { phone: '+14105550123' },
      at: '2026-11-24T01:00:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-24T13:00:00.000Z',
    },
    { name: 'WA 19:59', change: { phone: '+12065550123' }, at: '2026-11-24T03:59:00Z', outcome: 'allow' },
    {
      name: 'WA 20:00',
      change: { phone: '+12065550123' },
      at: '2026-11-24T04:00:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-24T16:00:00.000Z',
    },
    {
      name: 'CT 08:59',
      change: { phone: '+12035550123' },
      at: '2026-11-23T13:59:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-23T14:00:00.000Z',
    },
    { name: 'CT 09:00', change: { phone: '+12035550123' }, at: '2026-11-23T14:00:00Z', outcome: 'allow' },
    {
      name: 'CT 20:00',
      change: { phone: '+12035550123' },
      at: '2026-11-24T01:00:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-24T14:00:00.000Z',
    },
    {
      name: 'a jurisdiction adds a state: NY number tagged US-CT at 08:30',
      change: { jurisdictions: ['US-CT'] },
      at: '2026-11-23T13:30:00Z',
      outcome: 'defer',
      codes: ['state_quiet_hours'],
      next: '2026-11-23T14:00:00.000Z',
    },
  ])('$name', check);

  it('names state, zone, weekday and window', () => {
    const d = evaluate(inputs({ phone: TX }), new Date('2026-11-22T17:59:00Z'));
    expect(d.reasons[0]).toMatchObject({
      code: 'state_quiet_hours',
      state: 'US-TX',
      zone: 'America/Chicago',
      local_time: '11:59',
      weekday: 'Sunday',
      window: { start: '12:00', end: '21:00' },
    });
  });
});

describe('state_sunday_ban (marketing)', () => {
  it.each<Case>([
    {
      name: 'AL Sunday 12:00 → Monday 08:00',
      change: { phone: '+12055550123' },
      at: '2026-11-22T18:00:00Z',
      outcome: 'defer',
      codes: ['state_sunday_ban'],
      next: '2026-11-23T14:00:00.000Z',
    },
    {
      name: 'AL Sunday 20:59',
      change: { phone: '+12055550123' },
      at: '2026-11-23T02:59:00Z',
      outcome: 'defer',
      codes: ['state_sunday_ban'],
      next: '2026-11-23T14:00:00.000Z',
    },
    { name: 'AL Monday 08:00', change: { phone: '+12055550123' }, at: '2026-11-23T14:00:00Z', outcome: 'allow' },
    { name: 'AL Saturday 20:59', change: { phone: '+12055550123' }, at: '2026-11-22T02:59:00Z', outcome: 'allow' },
    {
      name: 'LA Sunday',
      change: { phone: '+15045550123' },
      at: '2026-11-22T18:00:00Z',
      outcome: 'defer',
      codes: ['state_sunday_ban'],
      next: '2026-11-23T14:00:00.000Z',
    },
    {
      name: 'MS Sunday',
      change: { phone: '+16015550123' },
      at: '2026-11-22T18:00:00Z',
      outcome: 'defer',
      codes: ['state_sunday_ban'],
      next: '2026-11-23T14:00:00.000Z',
    },
    { name: 'AL Sunday informational', change: { phone: '+12055550123', profile: informational }, at: '2026-11-22T18:00:00Z', outcome: 'allow' },
    {
      name: 'Sunday in one zone only: AL-tagged contact in Guam, Monday there',
      change: { phone: '+16715550123', jurisdictions: ['US-AL'] },
      at: '2026-11-23T00:00:00Z',
      outcome: 'allow',
    },
  ])('$name', check);
});

describe('state_frequency_cap (marketing, FL/OK/MD, per subject, 24 h)', () => {
  const FL = '+13055550123';
  const three = ['2026-11-22T18:00:00Z', '2026-11-23T13:30:00Z', '2026-11-23T14:00:00Z'];
  const attempts = (times: string[], subject = SUBJECT) => times.map((placed_at) => ({ placed_at, subject }));
  it.each<Case>([
    {
      name: 'fourth call in 24 h: wait until the oldest is 24 h old',
      change: { phone: FL, attempts: attempts(three) },
      at: MON_10AM_NY,
      outcome: 'defer',
      codes: ['state_frequency_cap'],
      next: '2026-11-23T18:00:00.000Z',
    },
    { name: 'two earlier calls', change: { phone: FL, attempts: attempts(three.slice(1)) }, at: MON_10AM_NY, outcome: 'allow' },
    {
      name: 'oldest exactly 24 h old',
      change: { phone: FL, attempts: attempts(['2026-11-22T15:00:00Z', ...three.slice(1)]) },
      at: MON_10AM_NY,
      outcome: 'allow',
    },
    {
      name: 'oldest 1 s younger than 24 h',
      change: { phone: FL, attempts: attempts(['2026-11-22T15:00:01Z', ...three.slice(1)]) },
      at: MON_10AM_NY,
      outcome: 'defer',
      codes: ['state_frequency_cap'],
      next: '2026-11-23T15:00:01.000Z',
    },
    {
      name: 'another subject does not count',
      change: { phone: FL, attempts: [...attempts(three.slice(1)), { placed_at: three[0]!, subject: 'other' }] },
      at: MON_10AM_NY,
      outcome: 'allow',
    },
    {
      name: 'four earlier calls: wait for the second oldest',
      change: { phone: FL, attempts: attempts(['2026-11-22T16:00:00Z', ...three]) },
      at: MON_10AM_NY,
      outcome: 'defer',
      codes: ['state_frequency_cap'],
      next: '2026-11-23T18:00:00.000Z',
    },
    {
      name: 'expiry in FL evening: wait for the morning',
      change: { phone: FL, attempts: attempts(['2026-11-23T01:30:00Z', '2026-11-23T13:30:00Z', '2026-11-23T14:00:00Z']) },
      at: MON_10AM_NY,
      outcome: 'defer',
      codes: ['state_frequency_cap'],
      next: '2026-11-24T13:00:00.000Z',
    },
    {
      name: 'OK',
      change: { phone: '+14055550123', attempts: attempts(three) },
      at: MON_10AM_NY,
      outcome: 'defer',
      codes: ['state_frequency_cap'],
      next: '2026-11-23T18:00:00.000Z',
    },
    {
      name: 'MD',
      change: { phone: '+14105550123', attempts: attempts(three) },
      at: MON_10AM_NY,
      outcome: 'defer',
      codes: ['state_frequency_cap'],
      next: '2026-11-23T18:00:00.000Z',
    },
    { name: 'NY has no cap', change: { attempts: attempts(three) }, at: MON_10AM_NY, outcome: 'allow' },
    { name: 'informational is not capped', change: { phone: FL, profile: informational, attempts: attempts(three) }, at: MON_10AM_NY, outcome: 'allow' },
  ])('$name', check);

  it('says how many and until when', () => {
    const d = evaluate(inputs({ phone: FL, attempts: attempts(three) }), new Date(MON_10AM_NY));
    expect(d.reasons[0]).toMatchObject({ code: 'state_frequency_cap', state: 'US-FL', subject: SUBJECT, attempts: 3, until: '2026-11-23T18:00:00.000Z' });
  });
});

describe('calling_window (the profile’s own)', () => {
  const windowed = { ...marketing, calling_window: { start: '10:00', end: '17:00' } };
  it.each<Case>([
    { name: '09:59', change: { profile: windowed }, at: '2026-11-23T14:59:00Z', outcome: 'defer', codes: ['calling_window'], next: '2026-11-23T15:00:00.000Z' },
    { name: '10:00', change: { profile: windowed }, at: '2026-11-23T15:00:00Z', outcome: 'allow' },
    { name: '16:59', change: { profile: windowed }, at: '2026-11-23T21:59:00Z', outcome: 'allow' },
    { name: '17:00', change: { profile: windowed }, at: '2026-11-23T22:00:00Z', outcome: 'defer', codes: ['calling_window'], next: '2026-11-24T15:00:00.000Z' },
    {
      name: 'informational too',
      change: { profile: { ...windowed, call_purpose: 'informational' } },
      at: '2026-11-23T22:00:00Z',
      outcome: 'defer',
      codes: ['calling_window'],
      next: '2026-11-24T15:00:00.000Z',
    },
  ])('$name', check);
});

describe('next_permitted_at across several defer reasons', () => {
  // A 205 number (AL, Chicago) whose contact lives in New York and is tagged US-FL, with a 10:00–17:00 profile window.
  const base = {
    phone: '+12055550123',
    timezone: 'America/New_York',
    jurisdictions: ['US-FL'],
    profile: { ...marketing, calling_window: { start: '10:00', end: '17:00' } },
  };
  const attempts = (oldest: string) => [oldest, '2026-11-22T23:00:00Z', '2026-11-23T01:00:00Z'].map((placed_at) => ({ placed_at, subject: SUBJECT }));
  const sundayNight = '2026-11-23T02:30:00Z'; // Sunday 21:30 New York, 20:30 Chicago
  const all = [
    'quiet_hours',
    'state_quiet_hours',
    'state_quiet_hours',
    'state_sunday_ban',
    'state_sunday_ban',
    'state_frequency_cap',
    'calling_window',
    'calling_window',
  ];
  it.each<Case>([
    {
      name: 'window opens in both zones (Monday 10:00 Chicago) after the cap clears',
      change: { ...base, attempts: attempts('2026-11-22T15:00:00Z') },
      at: sundayNight,
      outcome: 'defer',
      codes: all,
      next: '2026-11-23T16:00:00.000Z',
    },
    {
      name: 'the cap clears after the window opens',
      change: { ...base, attempts: attempts('2026-11-22T16:30:00Z') },
      at: sundayNight,
      outcome: 'defer',
      codes: all,
      next: '2026-11-23T16:30:00.000Z',
    },
    {
      name: 'the cap clears after Monday’s window closes: Tuesday',
      change: { ...base, attempts: attempts('2026-11-22T22:30:00Z') },
      at: sundayNight,
      outcome: 'defer',
      codes: all,
      next: '2026-11-24T16:00:00.000Z',
    },
  ])('$name', check);

  it('lists every failing rule with its zone and state', () => {
    const d = evaluate(inputs({ ...base, attempts: attempts('2026-11-22T15:00:00Z') }), new Date(sundayNight));
    expect(d.callee).toEqual({ zones: ['America/New_York', 'America/Chicago'], states: ['US-FL', 'US-AL'] });
    expect(d.reasons.map((r) => [r.code, r.state ?? null, r.zone ?? null, r.local_time ?? null])).toEqual([
      ['quiet_hours', null, 'America/New_York', '21:30'],
      ['state_quiet_hours', 'US-FL', 'America/New_York', '21:30'],
      ['state_quiet_hours', 'US-FL', 'America/Chicago', '20:30'],
      ['state_sunday_ban', 'US-AL', 'America/New_York', '21:30'],
      ['state_sunday_ban', 'US-AL', 'America/Chicago', '20:30'],
      ['state_frequency_cap', 'US-FL', null, null],
      ['calling_window', null, 'America/New_York', '21:30'],
      ['calling_window', null, 'America/Chicago', '20:30'],
    ]);
  });

  it('no instant within the horizon: block no_permitted_time', () => {
    check({
      name: 'CT 09:00–20:00 and a profile window 08:00–09:00',
      change: { phone: '+12035550123', profile: { ...marketing, calling_window: { start: '08:00', end: '09:00' } } },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['calling_window', 'no_permitted_time'],
      disposition: 'blocked_by_policy',
    });
  });
});

describe('consent', () => {
  it.each<Case>([
    {
      name: 'expired one second before at',
      change: { consents: [pewc({ expires_at: '2026-11-23T14:59:59Z' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_missing'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'expiring exactly at',
      change: { consents: [pewc({ expires_at: '2026-11-23T15:00:00Z' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_missing'],
      disposition: 'blocked_by_policy',
    },
    { name: 'expiring one second after at', change: { consents: [pewc({ expires_at: '2026-11-23T15:00:01Z' })] }, at: MON_10AM_NY, outcome: 'allow' },
    { name: 'none', change: { consents: [] }, at: MON_10AM_NY, outcome: 'block', codes: ['consent_missing'], disposition: 'blocked_by_policy' },
    {
      name: 'captured after at',
      change: { consents: [pewc({ captured_at: '2026-11-23T15:00:01Z' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_missing'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'marketing, ebr',
      change: { consents: [pewc({ basis: 'ebr' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_insufficient'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'marketing, pec',
      change: { consents: [pewc({ basis: 'pec' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_insufficient'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'marketing, transactional',
      change: { consents: [pewc({ basis: 'transactional' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_insufficient'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'marketing, expired pewc and valid ebr',
      change: { consents: [pewc({ expires_at: '2026-11-01T00:00:00Z' }), pewc({ basis: 'ebr' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_insufficient'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'informational, ebr',
      change: { profile: informational, consents: [pewc({ basis: 'ebr' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_insufficient'],
      disposition: 'blocked_by_policy',
    },
    { name: 'informational, pec', change: { profile: informational, consents: [pewc({ basis: 'pec' })] }, at: MON_10AM_NY, outcome: 'allow' },
    {
      name: 'informational, transactional',
      change: { profile: informational, consents: [pewc({ basis: 'transactional' })] },
      at: MON_10AM_NY,
      outcome: 'allow',
    },
    { name: 'informational, pewc', change: { profile: informational }, at: MON_10AM_NY, outcome: 'allow' },
    {
      name: 'purposes without the subject',
      change: { consents: [pewc({ scope: { purposes: ['other'] } })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_scope_mismatch'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'no purposes',
      change: { consents: [pewc({ scope: { seller: SELLER } })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_scope_mismatch'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'purposes not a list',
      change: { consents: [pewc({ scope: { purposes: SUBJECT } })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_scope_mismatch'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'channels with voice',
      change: { consents: [pewc({ scope: { purposes: [SUBJECT], channels: ['sms', 'voice'] } })] },
      at: MON_10AM_NY,
      outcome: 'allow',
    },
    {
      name: 'channels without voice',
      change: { consents: [pewc({ scope: { purposes: [SUBJECT], channels: ['sms'] } })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_scope_mismatch'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'seller in another case',
      change: { consents: [pewc({ scope: { purposes: [SUBJECT], seller: 'ACME SOLAR' } })] },
      at: MON_10AM_NY,
      outcome: 'allow',
    },
    {
      name: 'another seller',
      change: { consents: [pewc({ scope: { purposes: [SUBJECT], seller: 'Other Solar' } })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_scope_mismatch'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'channels and seller both given and matching',
      change: { consents: [pewc({ scope: { purposes: [SUBJECT], channels: ['voice'], seller: 'acme solar' } })] },
      at: MON_10AM_NY,
      outcome: 'allow',
    },
    {
      name: 'the covering consent is insufficient, the sufficient one does not cover',
      change: { consents: [pewc({ scope: { purposes: ['other'] } }), pewc({ basis: 'pec' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['consent_scope_mismatch'],
      disposition: 'blocked_by_policy',
    },
  ])('$name', check);
});

describe('do-not-call and scrubbing', () => {
  const listed = { loaded: true as const, as_of: '2026-11-01', listed: true };
  it.each<Case>([
    { name: 'suppressed', change: { suppressed: true }, at: MON_10AM_NY, outcome: 'block', codes: ['internal_dnc'], disposition: 'dnc_hit' },
    {
      name: 'suppressed, informational',
      change: { suppressed: true, profile: informational },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['internal_dnc'],
      disposition: 'dnc_hit',
    },
    { name: 'listed, covering pewc overrides', change: { snapshot: listed }, at: MON_10AM_NY, outcome: 'allow' },
    {
      name: 'listed, pewc for another seller',
      change: { snapshot: listed, consents: [pewc({ scope: { purposes: [SUBJECT], seller: 'Other' } })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['national_dnc', 'consent_scope_mismatch'],
      disposition: 'dnc_hit',
    },
    {
      name: 'listed, expired pewc',
      change: { snapshot: listed, consents: [pewc({ expires_at: '2026-11-23T14:59:59Z' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['national_dnc', 'consent_missing'],
      disposition: 'dnc_hit',
    },
    {
      name: 'listed, informational with pec',
      change: { snapshot: listed, profile: informational, consents: [pewc({ basis: 'pec' })] },
      at: MON_10AM_NY,
      outcome: 'allow',
    },
    {
      name: 'no SAN covers the area code',
      change: { sanAreaCodes: ['415'] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['dnc_no_san'],
      disposition: 'scrub_blocked',
    },
    { name: 'no SAN, informational', change: { sanAreaCodes: ['415'], profile: informational }, at: MON_10AM_NY, outcome: 'allow' },
    {
      name: 'no snapshot',
      change: { snapshot: { loaded: false } },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['dnc_registry_missing'],
      disposition: 'scrub_blocked',
    },
    { name: 'no snapshot, informational', change: { snapshot: { loaded: false }, profile: informational }, at: MON_10AM_NY, outcome: 'allow' },
    {
      name: 'snapshot exactly 31 days old',
      change: { snapshot: { loaded: true, as_of: '2026-10-23', listed: false } },
      at: '2026-11-23T00:00:00Z',
      outcome: 'allow',
    },
    {
      name: 'snapshot 31 days and 1 ms old',
      change: { snapshot: { loaded: true, as_of: '2026-10-23', listed: false } },
      at: '2026-11-23T00:00:00.001Z',
      outcome: 'block',
      codes: ['dnc_registry_stale'],
      disposition: 'scrub_blocked',
    },
    {
      name: 'stale and listed',
      change: { snapshot: { loaded: true, as_of: '2026-10-01', listed: true }, consents: [pewc({ basis: 'pec' })] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['national_dnc', 'dnc_registry_stale', 'consent_insufficient'],
      disposition: 'dnc_hit',
    },
    {
      name: 'disposition order: dnc_hit first',
      change: { suppressed: true, sanAreaCodes: [], consents: [] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['internal_dnc', 'dnc_no_san', 'consent_missing'],
      disposition: 'dnc_hit',
    },
    {
      name: 'disposition order: scrub_blocked before policy',
      change: { sanAreaCodes: [], snapshot: { loaded: false }, consents: [] },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['dnc_no_san', 'dnc_registry_missing', 'consent_missing'],
      disposition: 'scrub_blocked',
    },
    {
      name: 'a block wins over a defer',
      change: { suppressed: true },
      at: '2026-11-23T12:59:00Z',
      outcome: 'block',
      codes: ['internal_dnc', 'quiet_hours'],
      disposition: 'dnc_hit',
    },
  ])('$name', check);

  it('names area code and snapshot date', () => {
    const d = evaluate(inputs({ snapshot: { loaded: true, as_of: '2026-10-01', listed: true }, consents: [] }), new Date(MON_10AM_NY));
    expect(d.reasons.slice(0, 2)).toMatchObject([
      { code: 'national_dnc', area_code: '212', as_of: '2026-10-01' },
      { code: 'dnc_registry_stale', area_code: '212', as_of: '2026-10-01' },
    ]);
  });
});

describe('compliance profile and jurisdiction', () => {
  it.each<Case>([
    {
      name: 'no compliance profile',
      change: { profile: null },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['compliance_profile_missing'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'no profile and no consent',
      change: { profile: null, consents: [], snapshot: { loaded: false } },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['compliance_profile_missing', 'consent_missing'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'not +1',
      change: { phone: '+442071234567' },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: '+1 but not ten digits',
      change: { phone: '+1212555012' },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'Canada (416)',
      change: { phone: '+14165550123' },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'Caribbean (242, Bahamas)',
      change: { phone: '+12425550123' },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'toll-free (800)',
      change: { phone: '+18005550123' },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    // As stored: no SAN covers these area codes and no snapshot is loaded for them. The registry is a US one, so it is not asked.
    {
      name: 'Canada (416) marketing, as stored',
      change: { phone: '+14165550123', ...unscrubbable },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'Caribbean (242) marketing, as stored',
      change: { phone: '+12425550123', ...unscrubbable },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'toll-free (800) marketing, as stored',
      change: { phone: '+18005550123', ...unscrubbable },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'non-+1 marketing, as stored',
      change: { phone: '+442071234567', ...unscrubbable },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'Canada (416) informational, as stored',
      change: { phone: '+14165550123', profile: informational, ...unscrubbable },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    // US calling-time law is not asked for a callee we never dial: 06:00 in Toronto, a Sunday in Nassau, no deferral.
    {
      name: 'Canada (416) at 06:00 local: no quiet_hours',
      change: { phone: '+14165550123', ...unscrubbable },
      at: '2026-11-23T11:00:00Z',
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'Caribbean (242) tagged US-AL on a Sunday: no state rules',
      change: { phone: '+12425550123', jurisdictions: ['US-AL'], ...unscrubbable },
      at: '2026-11-22T18:00:00Z',
      outcome: 'block',
      codes: ['jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    // Rules that are not US law still speak: the tenant's own suppression list, the consent and the profile.
    {
      name: 'Canada (416), suppressed',
      change: { phone: '+14165550123', suppressed: true, ...unscrubbable },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['internal_dnc', 'jurisdiction_unsupported'],
      disposition: 'dnc_hit',
    },
    {
      name: 'Canada (416), no consent and no profile',
      change: { phone: '+14165550123', consents: [], profile: null, ...unscrubbable },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['compliance_profile_missing', 'consent_missing', 'jurisdiction_unsupported'],
      disposition: 'blocked_by_policy',
    },
    {
      name: 'Puerto Rico (787) marketing: the registry rules do run',
      change: { phone: '+17875550123', ...unscrubbable },
      at: MON_10AM_NY,
      outcome: 'block',
      codes: ['dnc_no_san', 'dnc_registry_missing'],
      disposition: 'scrub_blocked',
    },
    { name: 'Puerto Rico (787)', change: { phone: '+17875550123' }, at: MON_10AM_NY, outcome: 'allow' },
    { name: 'US Virgin Islands (340)', change: { phone: '+13405550123' }, at: MON_10AM_NY, outcome: 'allow' },
    {
      name: 'Guam (671) at 01:00 local',
      change: { phone: '+16715550123' },
      at: MON_10AM_NY,
      outcome: 'defer',
      codes: ['quiet_hours'],
      next: '2026-11-23T22:00:00.000Z',
    },
  ])('$name', check);

  it('territories are their own states; unsupported numbers still report what is known', () => {
    expect(evaluate(inputs({ phone: '+17875550123' }), new Date(MON_10AM_NY)).callee).toEqual({ zones: ['America/Puerto_Rico'], states: ['US-PR'] });
    const ca = evaluate(inputs({ phone: '+14165550123' }), new Date(MON_10AM_NY));
    expect(ca.callee).toEqual({ zones: ['America/Toronto'], states: [] });
    expect(ca.reasons[0]).toMatchObject({ area_code: '416', message: expect.stringContaining('Canada') });
    expect(evaluate(inputs({ phone: '+442071234567' }), new Date(MON_10AM_NY)).callee).toEqual({ zones: [], states: [] });
  });
});

describe('the decision', () => {
  it('an allowed call', () => {
    expect(evaluate(inputs(), new Date(MON_10AM_NY))).toEqual({
      outcome: 'allow',
      disposition: null,
      reasons: [],
      next_permitted_at: null,
      callee: { zones: ['America/New_York'], states: ['US-NY'] },
      call_purpose: 'marketing',
      evaluated_at: '2026-11-23T15:00:00.000Z',
      rule_set_version: RULE_SET_VERSION,
    });
    expect(RULE_SET_VERSION).toBe('us-voice-2026.11.2');
  });

  it('call_purpose comes from the profile, null without one', () => {
    expect(evaluate(inputs({ profile: informational }), new Date(MON_10AM_NY)).call_purpose).toBe('informational');
    expect(evaluate(inputs({ profile: null }), new Date(MON_10AM_NY)).call_purpose).toBeNull();
  });

  it('refuses an invalid instant', () => {
    expect(() => evaluate(inputs(), new Date('nope'))).toThrow(RangeError);
  });
});
