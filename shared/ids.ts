import { decodeTime, monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/**
 * Prefixed, time-ordered ids (`con_01J...`). Time order makes "newest first" a plain
 * reverse range read on the sort key, and the prefix tells a reader what an id names.
 */
export const newId = (prefix: string): string => `${prefix}_${ulid()}`;

/**
 * One prefix per resource. Import attestations were once minted `att_`, the prefix of
 * contact attempts; they are `ata_` now. Stored `att_` attestation ids stay readable: keys
 * and parsers take any prefix of the id grammar (ID_PATTERN), never a list of prefixes.
 */
export const ID_PREFIX = { attestation: 'ata', attempt: 'att' } as const;

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

/** Ids we mint never contain the key separator, so they cannot forge another key. */
export const ID_PATTERN = new RegExp(`^[a-z]{2,5}_${ULID}$`);

/** The ids of one kind: idPattern('usr') matches usr_<ULID>. */
export const idPattern = (prefix: string): RegExp => new RegExp(`^${prefix}_${ULID}$`);

export const isId = (value: string): boolean => ID_PATTERN.test(value);

/**
 * Platform templates have stable, human-readable ids (`tpl_sdr_outbound`), the same in
 * every deployment, so documentation and clients can name them.
 */
const TEMPLATE_ID_PATTERN = /^tpl_[a-z0-9]+(?:_[a-z0-9]+)*$/;
export const isTemplateId = (value: string): boolean => value.length <= 64 && TEMPLATE_ID_PATTERN.test(value);

/** A knowledge pack's id, and one of its documents' (a malformed id names nothing). */
export const isPackId = (id: string): boolean => idPattern('kp').test(id);
export const isDocumentId = (id: string): boolean => idPattern('kpd').test(id);

/** The wall-clock instant (epoch ms) an id of newId was made, or null for a string that is not one. */
export function idMadeAt(id: string): number | null {
  if (!isId(id)) return null;
  try {
    return decodeTime(id.slice(id.indexOf('_') + 1));
  } catch {
    return null;
  }
}
