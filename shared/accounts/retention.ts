/**
 * What an account deletion keeps (see docs/decisions/account-deletion.md), pure. Everything under the tenant's partitions
 * (`TENANT#<id>` and `TENANT#<id>#…`) and every platform item that names the tenant
 * (`tenant_id`) is deleted, EXCEPT these kinds, which law or billing require. The list is
 * by key shape, so item types added later (usage ledgers, surveys, …) are deleted without
 * anyone remembering to add them here; something new that must be kept is added here.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { keys, tenantPk } from '../db/keys.js';

export interface RetainedKind {
  readonly name: string;
  /** Kept items live in the tenant's main partition with this exact sort key or sort-key prefix. */
  readonly sk?: string;
  readonly skPrefix?: string;
  readonly why: string;
}

export const RETAINED_KINDS: readonly RetainedKind[] = [
  {
    name: 'invoice',
    skPrefix: 'INVOICE#',
    why: 'Billing and tax law: issued invoices are kept for the statutory period (written by the period close; see docs/decisions/billing.md)',
  },
  {
    name: 'suppression_hash',
    skPrefix: 'SUPPRESSION_HASH#',
    why: 'Evidence only (do-not-call law): the suppression list’s numbers as keyed hashes, so a complaint about a number can be answered (“it had opted out, and we honoured it until the account was deleted”) without keeping the number. No check reads them: the deleted tenant can no longer call anyone',
  },
  {
    name: 'deletion_request',
    sk: 'DELETION_REQUEST',
    why: 'Proof of the request and its completion (who confirmed, when), and the resumable run’s checkpoint',
  },
  {
    name: 'tenant_tombstone',
    sk: 'TENANT',
    why: 'The tenant id is never reused; the record is rewritten to id, status deleted and dates (the name is removed)',
  },
];

/** True when the item is one of the kept kinds of this tenant. */
export function isRetained(item: { pk: string; sk: string }, tenantId: string): boolean {
  if (item.pk !== tenantPk(tenantId)) return false;
  return RETAINED_KINDS.some((k) => (k.sk !== undefined && item.sk === k.sk) || (k.skPrefix !== undefined && item.sk.startsWith(k.skPrefix)));
}

/** The suppression list's active entry (`TENANT#<t>#SUPPRESSION#<e164>` / `ACTIVE`) → its number. */
export function suppressedNumber(item: { pk: string; sk: string }, tenantId: string): string | undefined {
  const prefix = `${tenantPk(tenantId)}#SUPPRESSION#`;
  if (item.sk !== 'ACTIVE' || !item.pk.startsWith(prefix)) return undefined;
  return item.pk.slice(prefix.length);
}

/**
 * The HMAC key of kept suppression hashes: HKDF-SHA256 of the server secret with its own label,
 * so the hashes are not computed under the API key pepper itself (a key used for one purpose
 * only; rotating or leaking one use's derived key says nothing about the other's).
 */
const SUPPRESSION_HASH_KEY_INFO = 'voice-agent-control-api/suppression-hash/v1';
export const suppressionHashKey = (serverSecret: string): Buffer => Buffer.from(hkdfSync('sha256', serverSecret, '', SUPPRESSION_HASH_KEY_INFO, 32));

/** HMAC-SHA256 under the derived key: matching a number needs the key, reading the list back does not work. */
export const numberHash = (key: string | Buffer, e164: string): string => createHmac('sha256', key).update(`suppression:${e164}`).digest('hex');

/** The kept form of a suppressed number. */
export const suppressionHashItem = (tenantId: string, hash: string, at: Date) => ({
  ...keys.suppressionHash(tenantId, hash),
  type: 'suppression_hash',
  kept_at: at.toISOString(),
});

/** The tenant record after deletion: the id stays taken; the name and everything else go. */
export const tenantTombstone = (tenantId: string, createdAt: string | undefined, at: Date) => ({
  ...keys.tenant(tenantId),
  type: 'tenant',
  id: tenantId,
  name: '',
  status: 'deleted',
  created_at: createdAt ?? at.toISOString(),
  deleted_at: at.toISOString(),
});
