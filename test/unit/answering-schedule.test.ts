import { describe, expect, it } from 'vitest';
import { isIanaZone, localTime } from '../../shared/policy/answering/local-time.js';
import type { BusinessHours } from '../../shared/policy/answering/model.js';
import { scheduleAt } from '../../shared/policy/answering/schedule.js';

const NY = 'America/New_York';
const policy = (business_hours?: BusinessHours, holiday_dates?: string[], timezone = NY) => ({ timezone, business_hours, holiday_dates });
const at = (iso: string) => new Date(iso);
const list = (p: ReturnType<typeof policy>, iso: string) => scheduleAt(p, at(iso)).list;

describe('which step list answers', () => {
  const weekdays = policy({ monday: [{ start: '09:00', end: '17:00' }] });

  it('includes a window start and excludes its end (New York in daylight time, UTC-4)', () => {
    // Monday 2026-03-09.
    expect(list(weekdays, '2026-03-09T12:59:59Z')).toBe('closed'); // 08:59:59
    expect(scheduleAt(weekdays, at('2026-03-09T13:00:00Z'))).toEqual({
      list: 'open',
      reason: 'within_hours',
      local: { date: '2026-03-09', weekday: 'monday', time: '09:00', minutes: 540 },
      window: { start: '09:00', end: '17:00' },
    });
    expect(list(weekdays, '2026-03-09T20:59:59Z')).toBe('open'); // 16:59:59
    expect(scheduleAt(weekdays, at('2026-03-09T21:00:00Z'))).toMatchObject({ list: 'closed', reason: 'outside_hours', local: { time: '17:00' } });
  });

  it('reads the same window an hour later in UTC in standard time (UTC-5)', () => {
    // Monday 2026-03-02, before the change.
    expect(list(weekdays, '2026-03-02T13:00:00Z')).toBe('closed'); // 08:00 EST
    expect(list(weekdays, '2026-03-02T14:00:00Z')).toBe('open'); // 09:00 EST
    expect(list(weekdays, '2026-03-02T21:59:00Z')).toBe('open'); // 16:59 EST
    expect(list(weekdays, '2026-03-02T22:00:00Z')).toBe('closed'); // 17:00 EST
  });

  it('follows the spring-forward day: 02:00–02:59 does not exist', () => {
    // Sunday 2026-03-08: 01:59:59 EST is followed by 03:00:00 EDT.
    const night = policy({ sunday: [{ start: '01:00', end: '03:30' }] });
    expect(scheduleAt(night, at('2026-03-08T06:59:59Z')).local.time).toBe('01:59');
    expect(list(night, '2026-03-08T06:59:59Z')).toBe('open');
    expect(scheduleAt(night, at('2026-03-08T07:00:00Z')).local.time).toBe('03:00');
    expect(list(night, '2026-03-08T07:29:59Z')).toBe('open'); // 03:29 EDT
    expect(list(night, '2026-03-08T07:30:00Z')).toBe('closed'); // 03:30 EDT
    const skipped = policy({ sunday: [{ start: '02:00', end: '03:00' }] });
    expect(list(skipped, '2026-03-08T06:59:59Z')).toBe('closed');
    expect(list(skipped, '2026-03-08T07:00:00Z')).toBe('closed');
  });

  it('follows the fall-back day: 01:00–01:59 happens twice', () => {
    // Sunday 2026-11-01: 01:59:59 EDT is followed by 01:00:00 EST.
    const night = policy({ sunday: [{ start: '01:00', end: '02:00' }] });
    expect(list(night, '2026-11-01T04:59:59Z')).toBe('closed'); // 00:59 EDT
    expect(list(night, '2026-11-01T05:30:00Z')).toBe('open'); // 01:30 EDT
    expect(list(night, '2026-11-01T06:30:00Z')).toBe('open'); // 01:30 EST
    expect(list(night, '2026-11-01T07:00:00Z')).toBe('closed'); // 02:00 EST
  });

  it('answers with closed steps for the whole local holiday date, whatever the hours say', () => {
    const alwaysOpenBut = policy(undefined, ['2026-12-25']);
    expect(list(alwaysOpenBut, '2026-12-25T04:59:59Z')).toBe('open'); // Dec 24 23:59 EST
    expect(scheduleAt(alwaysOpenBut, at('2026-12-25T05:00:00Z'))).toMatchObject({
      list: 'closed',
      reason: 'holiday',
      local: { date: '2026-12-25', time: '00:00' },
    });
    expect(list(alwaysOpenBut, '2026-12-26T04:59:59Z')).toBe('closed'); // Dec 25 23:59 EST
    expect(list(alwaysOpenBut, '2026-12-26T05:00:00Z')).toBe('open');
    const friday = policy({ friday: [{ start: '00:00', end: '24:00' }] }, ['2026-12-25']);
    expect(scheduleAt(friday, at('2026-12-25T17:00:00Z')).reason).toBe('holiday');
  });

  it('is open at every hour when business_hours is absent or empty', () => {
    for (const p of [policy(undefined), policy({})]) {
      for (const iso of ['2026-03-08T07:00:00Z', '2026-06-13T03:17:00Z', '2026-12-31T23:59:59Z', '2027-01-03T12:00:00Z']) {
        expect(scheduleAt(p, at(iso))).toMatchObject({ list: 'open', reason: 'always_open', window: null });
      }
    }
  });

  it('closes every day the hours do not name, and a day named with no windows', () => {
    expect(list(weekdays, '2026-03-10T15:00:00Z')).toBe('closed'); // Tuesday 11:00
    expect(list(weekdays, '2026-03-14T15:00:00Z')).toBe('closed'); // Saturday 11:00
    const mondayOff = policy({ monday: [], tuesday: [{ start: '09:00', end: '17:00' }] });
    expect(list(mondayOff, '2026-03-09T15:00:00Z')).toBe('closed');
    expect(list(mondayOff, '2026-03-10T15:00:00Z')).toBe('open');
  });

  it('lets 24:00 end a window at midnight and finds the right one of several windows', () => {
    const split = policy({
      saturday: [
        { start: '08:00', end: '12:00' },
        { start: '13:00', end: '24:00' },
      ],
    });
    expect(list(split, '2026-03-14T16:30:00Z')).toBe('closed'); // 12:30 EDT
    expect(scheduleAt(split, at('2026-03-15T03:59:59Z')).window).toEqual({ start: '13:00', end: '24:00' }); // Sat 23:59
    expect(list(split, '2026-03-15T04:00:00Z')).toBe('closed'); // Sunday 00:00
  });

  it('reads the local weekday and date in the policy zone, including half-hour offsets', () => {
    // 2026-03-09T19:00Z is Tuesday 00:30 in Kolkata (UTC+5:30) while still Monday in New York.
    const kolkata = policy({ tuesday: [{ start: '00:30', end: '01:00' }] }, [], 'Asia/Kolkata');
    expect(scheduleAt(kolkata, at('2026-03-09T18:59:59Z'))).toMatchObject({ list: 'closed', local: { date: '2026-03-10', weekday: 'tuesday', time: '00:29' } });
    expect(list(kolkata, '2026-03-09T19:00:00Z')).toBe('open');
    expect(localTime(at('2026-03-09T19:00:00Z'), NY)).toEqual({ date: '2026-03-09', weekday: 'monday', time: '15:00', minutes: 900 });
    expect(localTime(at('0999-06-01T12:00:00Z'), 'UTC').date).toBe('0999-06-01');
  });
});

describe('IANA zones', () => {
  it('knows real zones and refuses offsets and made-up names', () => {
    for (const z of [NY, 'Europe/London', 'Asia/Kolkata', 'UTC', 'Etc/GMT+5', 'US/Eastern']) expect(isIanaZone(z)).toBe(true);
    for (const z of ['+05:00', '-0800', 'Mars/Base', '', 'America/New York']) expect(isIanaZone(z)).toBe(false);
    // Case-insensitive, as Intl is: both spellings read the same wall clock.
    expect(isIanaZone('america/new_york')).toBe(true);
    expect(localTime(new Date('2026-07-01T12:00:00Z'), 'AMERICA/NEW_YORK')).toEqual(localTime(new Date('2026-07-01T12:00:00Z'), NY));
  });
});
