/** The shape of one area code in the numbering-plan table (generated; see area-codes.generated.ts). */
export type NanpRegion = 'US' | 'US_territory' | 'CA' | 'caribbean';

export interface AreaCodeInfo {
  region: NanpRegion;
  /** ISO 3166-2 style `US-XX` (USPS code) for US states, DC and territories; null elsewhere. */
  state: string | null;
  /** IANA zones of the area code, sorted. */
  zones: readonly string[];
}
