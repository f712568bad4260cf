/**
 * next_permitted_at: the earliest instant ≥ at when no defer rule holds.
 *
 * Every defer rule is a function of each zone's wall clock (minute of day, weekday) and of
 * attempt ages, so it can only stop holding where a zone's wall clock reaches a window
 * boundary or midnight, where a zone's offset changes (a DST gap can skip a boundary), or
 * where an attempt turns 24 h old. We list exactly those instants, in order, and ask the
 * rules at each: the first that passes is the answer. Wall-clock instants are found per
 * local day with each offset that day has, so DST days need no special case.
 */

import { localClock, offsetMs } from '../../time-zone.js';
import { LEGAL_WINDOW, minutesOf } from '../calling-window.js';
import { deferReasonsAt } from './defer-rules.js';
import { FREQUENCY_CAP, STATE_WINDOWS } from './state-rules.js';
import type { TimeContext } from './time-context.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** How far ahead we look. Weekly rules repeat within 8 days and the cap clears within 1, so nothing found means never. */
export const SEARCH_HORIZON_DAYS = 14;
/** Most deferrals clear within a day or two: search that first, the rest of the horizon only if needed. */
const FIRST_SPAN_DAYS = 2;

const WEEKDAY_BOUNDARIES = [
  0,
  minutesOf(LEGAL_WINDOW.start),
  minutesOf(LEGAL_WINDOW.end),
  ...Object.values(STATE_WINDOWS).flatMap((w) => [0, 1, 2, 3, 4, 5, 6].flatMap((d) => [minutesOf(w(d).start), minutesOf(w(d).end)])),
];

function boundaryMinutes(ctx: TimeContext): number[] {
  const all = new Set(WEEKDAY_BOUNDARIES);
  if (ctx.profileWindow) for (const m of [ctx.profileWindow.start, ctx.profileWindow.end]) all.add(minutesOf(m));
  return [...all];
}

/** First instant in (lo, hi] whose offset differs from lo's (one transition between them), to the minute. */
function transitionBetween(zone: string, lo: number, hi: number): number {
  const before = offsetMs(zone, lo);
  let a = Math.floor(lo / MINUTE_MS);
  let b = Math.ceil(hi / MINUTE_MS);
  while (b - a > 1) {
    const mid = Math.floor((a + b) / 2);
    if (offsetMs(zone, mid * MINUTE_MS) === before) a = mid;
    else b = mid;
  }
  return b * MINUTE_MS;
}

/** Instants in one local day of `zone` where its wall clock reaches a boundary, plus any offset change that day. */
function dayCandidates(zone: string, localMidnightWallMs: number, boundaries: readonly number[], out: number[]): void {
  // A local day lies within [midnight − 14 h, midnight + 36 h] in UTC whatever the zone's offset.
  const samples = [localMidnightWallMs - 14 * HOUR_MS, localMidnightWallMs + 11 * HOUR_MS, localMidnightWallMs + 36 * HOUR_MS];
  const offsets = samples.map((t) => offsetMs(zone, t));
  for (let i = 1; i < samples.length; i++) if (offsets[i] !== offsets[i - 1]) out.push(transitionBetween(zone, samples[i - 1]!, samples[i]!));
  for (const minute of boundaries) {
    const wall = localMidnightWallMs + minute * MINUTE_MS;
    for (const offset of new Set(offsets)) {
      const t = wall - offset;
      if (localClock(zone, t).wallMs === wall) out.push(t);
    }
  }
}

function candidatesIn(ctx: TimeContext, fromMs: number, toMs: number): number[] {
  const out: number[] = [];
  const boundaries = boundaryMinutes(ctx);
  for (const zone of ctx.zones) {
    const firstWall = localClock(zone, fromMs).wallMs;
    const firstMidnight = firstWall - (((firstWall % DAY_MS) + DAY_MS) % DAY_MS);
    const days = Math.ceil((toMs - fromMs) / DAY_MS) + 1;
    for (let d = 0; d <= days; d++) dayCandidates(zone, firstMidnight + d * DAY_MS, boundaries, out);
  }
  for (const t of ctx.sameSubjectAttempts) out.push(t + FREQUENCY_CAP.periodMs);
  return [...new Set(out.filter((t) => t > fromMs && t <= toMs))].sort((a, b) => a - b);
}

/** The earliest instant ≥ atMs with no defer reason, or null when none lies within the horizon. */
export function nextPermittedAt(ctx: TimeContext, atMs: number): number | null {
  if (deferReasonsAt(ctx, atMs).length === 0) return atMs;
  const spans: Array<[number, number]> = [
    [atMs, atMs + FIRST_SPAN_DAYS * DAY_MS],
    [atMs + FIRST_SPAN_DAYS * DAY_MS, atMs + SEARCH_HORIZON_DAYS * DAY_MS],
  ];
  for (const [from, to] of spans) {
    for (const t of candidatesIn(ctx, from, to)) if (deferReasonsAt(ctx, t).length === 0) return t;
  }
  return null;
}
