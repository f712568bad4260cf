/**
 * Wall-clock time in an IANA zone ↔ instants, and zone validity, from the platform's Intl
 * data (the design). Pure: every function takes the instant. DST needs no special case: Intl
 * maps each instant to the local time actually shown in that zone, and a wall time is turned
 * back into an instant by trying the offsets in force around it. Used by the compliance
 * engine (calling windows), answering policies (open/closed) and calendar availability.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws RangeError for a zone Intl does not know. Cached per zone: building one costs far more than using it. */
function formatter(zone: string): Intl.DateTimeFormat {
  // Zone names are case-insensitive; one entry per zone keeps the cache bounded by the zone list.
  const key = zone.toLowerCase();
  let f = formatters.get(key);
  if (!f) {
    // Gregorian calendar and Latin digits whatever the host's default locale data says.
    f = new Intl.DateTimeFormat('en-US-u-ca-gregory-nu-latn', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(key, f);
  }
  return f;
}

/** A zone Intl accepts (on newer engines that includes UTC offsets such as "+05:00"). */
export function isKnownZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * An IANA zone name Intl knows. UTC offsets ("+05:00") are not IANA names and have no DST
 * rules, so they are refused.
 */
export const isIanaZone = (zone: string): boolean => /^[A-Za-z]/.test(zone) && isKnownZone(zone);

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

export interface LocalClock {
  /** The local wall-clock reading expressed as if it were UTC, in ms (instant + zone offset). */
  wallMs: number;
  /** Minutes since local midnight, 0–1439. */
  minute: number;
  /** 0 = Sunday … 6 = Saturday, in the zone. */
  weekday: number;
}

export function localClock(zone: string, instantMs: number): LocalClock {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(instantMs)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wallMs = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) + (((instantMs % 1000) + 1000) % 1000);
  const wall = new Date(wallMs);
  return { wallMs, minute: wall.getUTCHours() * 60 + wall.getUTCMinutes(), weekday: wall.getUTCDay() };
}

/** The zone's offset from UTC at the instant, in ms (wall clock − UTC). */
export const offsetMs = (zone: string, instantMs: number): number => localClock(zone, instantMs).wallMs - instantMs;

export const hhmm = (minute: number): string => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/**
 * The instant a wall time (a date's UTC midnight in ms + minutes) names in `zone`: the first
 * occurrence in an overlap, the first instant after the gap for a time the clocks skip.
 */
export function wallToInstant(dateMs: number, minutes: number, zone: string): number {
  const wall = dateMs + minutes * 60_000;
  // The offsets in force well before and well after the wall time (no zone changes twice in 28 h).
  const candidates = [wall - offsetMs(zone, wall - 14 * 3_600_000), wall - offsetMs(zone, wall + 14 * 3_600_000)];
  const exact = candidates.filter((t) => t + offsetMs(zone, t) === wall);
  if (exact.length) return Math.min(...exact);
  return Math.max(...candidates); // in the gap: pushed forward by the gap's length
}
