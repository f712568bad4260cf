/**
 * Wall-clock time in an IANA zone, from the platform's Intl data (DESIGN §11). DST needs
 * no special case: Intl maps each instant to the local time actually shown in that zone.
 */
import { WEEKDAYS, type Weekday } from './model.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws RangeError for a zone Intl does not know. */
function formatter(zone: string): Intl.DateTimeFormat {
  // Zone names are case-insensitive; one entry per zone keeps the cache bounded by the zone list.
  const key = zone.toLowerCase();
  let f = formatters.get(key);
  if (!f) {
    // Gregorian calendar and Latin digits whatever the host's default locale data says.
    f = new Intl.DateTimeFormat('en-US-u-ca-gregory-nu-latn', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'long',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(key, f);
  }
  return f;
}

/**
 * An IANA zone name Intl knows. Newer engines also accept UTC offsets ("+05:00") as zones;
 * those are not IANA names and have no DST rules, so they are refused.
 */
export function isIanaZone(zone: string): boolean {
  if (!/^[A-Za-z]/.test(zone)) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

export interface LocalTime {
  /** YYYY-MM-DD in the zone. */
  date: string;
  weekday: Weekday;
  /** HH:MM, 24-hour. */
  time: string;
  /** Minutes since local midnight. */
  minutes: number;
}

export function localTime(at: Date, zone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(at)) parts[p.type] = p.value;
  const weekday = parts.weekday!.toLowerCase() as Weekday;
  if (!WEEKDAYS.includes(weekday)) throw new Error(`unexpected weekday from Intl: ${parts.weekday}`);
  const date = `${parts.year!.padStart(4, '0')}-${parts.month}-${parts.day}`;
  const time = `${parts.hour}:${parts.minute}`;
  return { date, weekday, time, minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}
