import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/**
 * Prefixed, time-ordered ids (`con_01J...`). Time order makes "newest first" a plain
 * reverse range read on the sort key, and the prefix tells a reader what an id names.
 */
export const newId = (prefix: string): string => `${prefix}_${ulid()}`;

/** Ids we mint never contain the key separator, so they cannot forge another key. */
export const ID_PATTERN = /^[a-z]{2,5}_[0-9A-HJKMNP-TV-Z]{26}$/;
