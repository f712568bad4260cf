/**
 * How many SMS segments a body costs, counted as carriers count them (3GPP TS 23.038 /
 * 23.040): a body whose every character is in the GSM 03.38 default alphabet is GSM-7, where
 * a character of the extension table (`^ { } \ [ ~ ] | €` and form feed) is an escape plus
 * the character, two septets; one message holds 160 septets, and a longer body is sent in
 * parts of 153 (7 septets go to the concatenation header), an escape pair never split
 * across parts. Any other character makes the whole body UCS-2: 70 UTF-16 code units in
 * one message, 67 per part, a surrogate pair (an emoji) never split. Pure.
 */
const GSM7_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '\f^{}\\[~]|€';

const BASIC = new Set(GSM7_BASIC);
const EXTENSION = new Set(GSM7_EXTENSION);

type SmsEncoding = 'GSM-7' | 'UCS-2';

const SEGMENT_LIMITS = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
} as const;

export interface SegmentCount {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) the body takes. */
  units: number;
  segments: number;
}

const isGsm7 = (body: string): boolean => [...body].every((ch) => BASIC.has(ch) || EXTENSION.has(ch));

/** Packs characters (each of `width` units, never split) into parts of `part` units. */
function parts(widths: readonly number[], part: number): number {
  let count = 1;
  let used = 0;
  for (const w of widths) {
    if (used + w > part) {
      count++;
      used = 0;
    }
    used += w;
  }
  return count;
}

export function countSegments(body: string): SegmentCount {
  const encoding: SmsEncoding = isGsm7(body) ? 'GSM-7' : 'UCS-2';
  const chars = [...body]; // code points: a surrogate pair stays whole
  const widths = chars.map((ch) => (encoding === 'GSM-7' ? (EXTENSION.has(ch) ? 2 : 1) : ch.length));
  const units = widths.reduce((a, b) => a + b, 0);
  const limits = SEGMENT_LIMITS[encoding];
  return { encoding, units, segments: units <= limits.single ? 1 : parts(widths, limits.part) };
}
