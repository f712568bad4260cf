/**
 * What a phone number says about where its callee is: NANP area code → region, state and
 * zones, from the generated libphonenumber table (the design).
 */
import { AREA_CODES, type AreaCodeInfo } from './area-codes.generated.js';

export type { AreaCodeInfo } from './area-codes.generated.js';

const NANP = /^\+1(\d{3})\d{7}$/;

export interface NumberPlace {
  /** Three digits when the number is a ten-digit +1 number, else null. */
  areaCode: string | null;
  /** The area code's entry; null for non-NANP numbers and area codes with no place (toll-free, 5XX, unassigned). */
  info: AreaCodeInfo | null;
}

export function placeOf(phoneE164: string): NumberPlace {
  const areaCode = NANP.exec(phoneE164)?.[1] ?? null;
  return { areaCode, info: areaCode === null ? null : (AREA_CODES[areaCode] ?? null) };
}

/** US states, DC and the territories are dialled; Canada and the Caribbean are not (we only dial where we know the rules). */
export const isUsJurisdiction = (info: AreaCodeInfo | null): boolean => info !== null && (info.region === 'US' || info.region === 'US_territory');
