import { describe, expect, it } from 'vitest';
import {
  type AvailabilityInput,
  DEFAULT_WORKING_HOURS,
  freeSlots,
  mergeIntervals,
  type WorkingHours,
  wallToInstant,
} from '../../shared/policy/calendar/availability.js';

const ms = (iso: string) => Date.parse(iso);
const base = (over: Partial<AvailabilityInput> = {}): AvailabilityInput => ({
  startDate: '2026-06-01', // a Monday
  endDate: '2026-06-01',
  durationMinutes: 30,
  timezone: 'America/New_York',
  workingTimezone: 'America/New_York',
  workingHours: DEFAULT_WORKING_HOURS,
  busy: [],
  at: new Date('2026-05-01T00:00:00Z'),
  ...over,
});
const starts = (input: AvailabilityInput) => freeSlots(input).map((s) => s.starts_at);

describe('free slots: working hours and the grid', () => {
  it('fills a default Monday 09:00–17:00 New York day on a 15-minute grid, the last slot ending at 17:00', () => {
    const slots = freeSlots(base());
    expect(slots[0]).toEqual({ starts_at: '2026-06-01T13:00:00.000Z', ends_at: '2026-06-01T13:30:00.000Z' });
    expect(slots.at(-1)).toEqual({ starts_at: '2026-06-01T20:30:00.000Z', ends_at: '2026-06-01T21:00:00.000Z' });
    expect(slots).toHaveLength((8 * 60 - 30) / 15 + 1);
    for (const s of slots) expect(new Date(s.starts_at).getUTCMinutes() % 15).toBe(0);
  });

  it('gives nothing on a weekend with the default hours, and honours custom hours', () => {
    expect(freeSlots(base({ startDate: '2026-06-06', endDate: '2026-06-07' }))).toEqual([]);
    const hours: WorkingHours = {
      ...DEFAULT_WORKING_HOURS,
      saturday: [{ start: '10:00', end: '11:00' }],
      monday: [
        { start: '08:00', end: '09:00' },
        { start: '13:00', end: '13:45' },
      ],
    };
    expect(starts(base({ startDate: '2026-06-06', endDate: '2026-06-06', workingHours: hours }))).toEqual([
      '2026-06-06T14:00:00.000Z',
      '2026-06-06T14:15:00.000Z',
      '2026-06-06T14:30:00.000Z',
    ]);
    expect(starts(base({ workingHours: hours }))).toEqual([
      '2026-06-01T12:00:00.000Z',
      '2026-06-01T12:15:00.000Z',
      '2026-06-01T12:30:00.000Z',
      '2026-06-01T17:00:00.000Z',
      '2026-06-01T17:15:00.000Z',
    ]);
  });

  it('returns no slot longer than any window', () => {
    expect(freeSlots(base({ durationMinutes: 240, workingHours: { ...DEFAULT_WORKING_HOURS, monday: [{ start: '09:00', end: '12:00' }] } }))).toEqual([]);
  });

  it('reads the requested dates in the requested zone while working hours stay in the connection’s zone', () => {
    // Tokyo’s 2026-06-02 runs from 2026-06-01T15:00Z: it sees New York’s Monday from 11:00 on.
    const slots = freeSlots(base({ timezone: 'Asia/Tokyo', startDate: '2026-06-02', endDate: '2026-06-02' }));
    expect(slots[0]!.starts_at).toBe('2026-06-01T15:00:00.000Z');
    // …and a slot belongs to the day it starts on: the last one starts 14:45Z (23:45 in Tokyo).
    expect(slots.at(-1)!.starts_at).toBe('2026-06-02T14:45:00.000Z');
    expect(slots.some((s) => s.starts_at >= '2026-06-02T15:00:00.000Z')).toBe(false);
  });

  it('keeps the grid on local quarter hours in a +05:45 zone', () => {
    const slots = freeSlots(base({ timezone: 'Asia/Kathmandu', workingTimezone: 'Asia/Kathmandu' }));
    expect(slots[0]!.starts_at).toBe('2026-06-01T03:15:00.000Z'); // 09:00 NPT
  });
});

describe('free slots: busy blocks', () => {
  it('skips every slot that touches a busy block and resumes on the next grid point after it', () => {
    const busy = [{ start: ms('2026-06-01T14:10:00Z'), end: ms('2026-06-01T15:05:00Z') }];
    const s = starts(base({ busy }));
    expect(s).toContain('2026-06-01T13:30:00.000Z'); // 09:30–10:00 ends before 10:10
    expect(s).not.toContain('2026-06-01T13:45:00.000Z'); // 09:45–10:15 overlaps
    expect(s).not.toContain('2026-06-01T15:00:00.000Z');
    expect(s).toContain('2026-06-01T15:15:00.000Z');
    const adjacent = starts(base({ busy: [{ start: ms('2026-06-01T14:00:00Z'), end: ms('2026-06-01T15:00:00Z') }] }));
    expect(adjacent).toContain('2026-06-01T13:30:00.000Z'); // ends exactly where the block starts
    expect(adjacent).toContain('2026-06-01T15:00:00.000Z'); // starts exactly where it ends
  });

  it('merges overlapping and unordered blocks; a day-long block leaves nothing', () => {
    expect(
      mergeIntervals([
        { start: 5, end: 9 },
        { start: 1, end: 3 },
        { start: 2, end: 6 },
        { start: 10, end: 10 },
      ]),
    ).toEqual([{ start: 1, end: 9 }]);
    expect(freeSlots(base({ busy: [{ start: ms('2026-06-01T00:00:00Z'), end: ms('2026-06-02T00:00:00Z') }] }))).toEqual([]);
  });
});

describe('free slots: never in the past', () => {
  it('starts at the first grid point at or after the instant asked at', () => {
    const s = starts(base({ at: new Date('2026-06-01T16:07:30Z') }));
    expect(s[0]).toBe('2026-06-01T16:15:00.000Z');
    expect(freeSlots(base({ at: new Date('2026-06-02T00:00:00Z') }))).toEqual([]);
  });
});

describe('free slots: DST', () => {
  it('keeps 09:00 local across the spring change in New York (EST → EDT)', () => {
    const s = freeSlots(base({ startDate: '2026-03-06', endDate: '2026-03-09', at: new Date('2026-01-01T00:00:00Z') }));
    const firsts = [...new Set(s.map((x) => x.starts_at.slice(0, 10)))].map((d) => s.find((x) => x.starts_at.startsWith(d))!.starts_at);
    expect(firsts).toEqual(['2026-03-06T14:00:00.000Z', '2026-03-09T13:00:00.000Z']);
  });

  it('keeps 09:00 local across the autumn change in London (BST → GMT)', () => {
    const s = freeSlots(
      base({
        timezone: 'Europe/London',
        workingTimezone: 'Europe/London',
        startDate: '2026-10-23',
        endDate: '2026-10-26',
        at: new Date('2026-01-01T00:00:00Z'),
      }),
    );
    expect(s[0]!.starts_at).toBe('2026-10-23T08:00:00.000Z');
    expect(s.find((x) => x.starts_at.startsWith('2026-10-26'))!.starts_at).toBe('2026-10-26T09:00:00.000Z');
  });

  it('reads skipped and repeated wall times as the first instant after the gap and the first occurrence', () => {
    expect(new Date(wallToInstant('2026-03-08', 150, 'America/New_York')).toISOString()).toBe('2026-03-08T07:30:00.000Z'); // 02:30 does not exist → 03:30 EDT
    expect(new Date(wallToInstant('2026-11-01', 90, 'America/New_York')).toISOString()).toBe('2026-11-01T05:30:00.000Z'); // 01:30 EDT, the first one
  });

  it('spans a night shift over the spring gap: 00:00–04:00 is 3 hours of slots that night', () => {
    const hours: WorkingHours = { ...DEFAULT_WORKING_HOURS, sunday: [{ start: '00:00', end: '04:00' }] };
    const s = freeSlots(
      base({ startDate: '2026-03-08', endDate: '2026-03-08', workingHours: hours, durationMinutes: 15, at: new Date('2026-01-01T00:00:00Z') }),
    );
    expect(s).toHaveLength(12);
    expect(s[0]!.starts_at).toBe('2026-03-08T05:00:00.000Z');
    expect(s.at(-1)!.ends_at).toBe('2026-03-08T08:00:00.000Z');
  });
});

describe('free slots: range', () => {
  it('covers 31 days (23 weekdays in July 2026) and refuses 32 or a reversed range', () => {
    const s = freeSlots(base({ startDate: '2026-07-01', endDate: '2026-07-31', durationMinutes: 60 }));
    const days = new Set(s.map((x) => x.starts_at.slice(0, 10)));
    expect(days.size).toBe(23);
    expect(s).toHaveLength(23 * 29);
    expect(() => freeSlots(base({ startDate: '2026-07-01', endDate: '2026-08-01' }))).toThrow(RangeError);
    expect(() => freeSlots(base({ startDate: '2026-07-02', endDate: '2026-07-01' }))).toThrow(RangeError);
  });
});
