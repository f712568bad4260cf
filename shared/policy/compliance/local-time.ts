/**
 * Wall-clock time in an IANA zone at an instant, from the platform's Intl data (DESIGN §11).
 * Formatters are cached per zone: building one costs far more than using it.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, f);
  }
  return f;
}

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
  for (const part of formatterFor(zone).formatToParts(instantMs)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wallMs = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) + (((instantMs % 1000) + 1000) % 1000);
  const wall = new Date(wallMs);
  return { wallMs, minute: wall.getUTCHours() * 60 + wall.getUTCMinutes(), weekday: wall.getUTCDay() };
}

/** The zone's offset from UTC at the instant, in ms. */
export const offsetMs = (zone: string, instantMs: number): number => localClock(zone, instantMs).wallMs - instantMs;

export const hhmm = (minute: number): string => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
