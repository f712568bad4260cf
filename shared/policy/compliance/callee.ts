/**
 * Who and where the callee may be: every zone and every US state the call could reach,
 * and whether we dial there at all. Rules judge a call against all of them, because the
 * number alone does not say which one is true.
 */
import { isUsJurisdiction, type NumberPlace, placeOf } from './numbering.js';
import type { ComplianceReason, ContactFacts } from './types.js';

export interface Callee {
  place: NumberPlace;
  /** The number is in the US or a territory: the only places we dial, and the only ones US law (registry, calling hours) is asked about. */
  us: boolean;
  zones: string[];
  states: string[];
}

const US_STATE_TAG = /^US-[A-Z]{2}$/;

export function calleeOf(contact: ContactFacts): Callee {
  const place = placeOf(contact.phone_e164);
  const zones = new Set<string>();
  if (contact.timezone) zones.add(contact.timezone);
  for (const z of place.info?.zones ?? []) zones.add(z);
  const states = new Set<string>();
  // Case-insensitive: a tag written us-fl still names Florida, and more rules is the safe side.
  for (const j of contact.jurisdictions) if (US_STATE_TAG.test(j.toUpperCase())) states.add(j.toUpperCase());
  if (place.info?.state) states.add(place.info.state);
  return { place, us: isUsJurisdiction(place.info), zones: [...zones], states: [...states] };
}

const REGION_NAMES = { CA: 'Canada', caribbean: 'the Caribbean' } as const;

export function jurisdictionReasons({ place, us }: Callee, phone: string): ComplianceReason[] {
  if (us) return [];
  const what = 'only numbers in the US and its territories are dialled; remove this contact from voice campaigns or correct its number';
  if (place.areaCode === null) {
    return [{ code: 'jurisdiction_unsupported', message: `${phone} is not a ten-digit +1 number: ${what}` }];
  }
  if (place.info === null) {
    return [
      {
        code: 'jurisdiction_unsupported',
        area_code: place.areaCode,
        message: `Area code ${place.areaCode} is not a geographic US area code in the numbering-plan dataset (toll-free, service or unassigned): ${what}`,
      },
    ];
  }
  const region = REGION_NAMES[place.info.region as keyof typeof REGION_NAMES];
  return [{ code: 'jurisdiction_unsupported', area_code: place.areaCode, message: `Area code ${place.areaCode} is in ${region}: ${what}` }];
}
