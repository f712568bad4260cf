/**
 * What a call's or a text's caller choice reads of the tenant's phone numbers and telephony
 * accounts (shared/policy/caller-number.ts): each number's state and dial count, each account's
 * verification, SAN refs and carrier, never its sealed credentials. Apart from
 * phone-numbers.ts and telephony-accounts.ts (claims, provisioning, connecting, verifying,
 * lists) so the call and text paths' bundles carry these reads and none of the write sides,
 * the secret box or the schemas.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type ItemsByKey, itemAt } from '../db/batch-get.js';
import { db, tableName } from '../db/client.js';
import { collections, keys, tenantPk } from '../db/keys.js';
import { projectionOf, queryCollection } from '../db/query.js';
import { isId } from '../ids.js';
import type { NumberCapability, NumberStatus, ReputationState, TelephonyProviderName, VerificationStatus } from '../policy/telephony-states.js';

/** A number as the caller choice reads it (shared/policy/caller-number.ts); a stored PhoneNumberRecord is one. */
export interface CallerNumber {
  id: string;
  phone_e164: string;
  telephony_account_id: string;
  status: NumberStatus;
  capabilities: NumberCapability[];
  reputation_state: ReputationState;
  daily_dial_cap: number | null;
  /** The UTC day (YYYY-MM-DD) `dials_count` counts; another day means zero dials today. */
  dials_day: string | null;
  dials_count: number;
  a2p_campaign_ref: string | null;
  created_at: string;
}

const CALLER_FIELDS = [
  'id',
  'phone_e164',
  'telephony_account_id',
  'status',
  'capabilities',
  'reputation_state',
  'daily_dial_cap',
  'dials_day',
  'dials_count',
  'created_at',
  'a2p_campaign_ref',
] as const satisfies readonly (keyof CallerNumber)[];

const callerNumberOf = (n: Record<string, unknown>): CallerNumber =>
  ({
    ...Object.fromEntries(CALLER_FIELDS.map((f) => [f, n[f]])),
    a2p_campaign_ref: (n.a2p_campaign_ref as string | null) ?? null,
    daily_dial_cap: (n.daily_dial_cap as number | null) ?? null,
    dials_day: (n.dials_day as string | null) ?? null,
    dials_count: (n.dials_count as number) ?? 0,
  }) as CallerNumber;

/** Every number of the tenant, projected to what the caller choice reads: one strongly consistent Query. */
export async function readCallerNumbers(tenantId: string): Promise<CallerNumber[]> {
  const items = await queryCollection({ pk: tenantPk(tenantId), prefix: collections.phoneNumbers }, { ...projectionOf(CALLER_FIELDS), ConsistentRead: true });
  return items.map(callerNumberOf);
}

/**
 * The tenant's numbers' membership version: one more in the same transaction that creates or
 * deletes a number item (phone-numbers.ts), never changed by anything else. So a list of the
 * tenant's number ids read AFTER the version was seen at `v` is the whole list for as long as
 * the version reads `v`: a route can then read those items by key, with its credential, instead
 * of querying them. Only the membership is versioned; each number's state and counts are always
 * read from its own item. A tenant whose numbers never changed since the version was kept reads 0.
 */
export const numbersVersionKey = (tenantId: string) => keys.numbersVersion(tenantId);

export const numbersVersionOf = (item: Record<string, unknown> | undefined): number => (typeof item?.version === 'number' ? item.version : 0);

/** The Update that counts one change of membership, for the transaction that makes it. */
export const numbersVersionBump = (tenantId: string) => ({
  Update: {
    TableName: tableName(),
    Key: numbersVersionKey(tenantId),
    UpdateExpression: 'SET #type = :type ADD version :one',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':type': 'numbers_version', ':one': 1 },
  },
});

export const callerNumberKeys = (tenantId: string, ids: readonly string[]) => ids.map((id) => keys.phoneNumber(tenantId, id));

/** The numbers `ids` from items read by key, as readCallerNumbers returns them; undefined when one is missing. */
export function callerNumbersFrom(items: ItemsByKey, tenantId: string, ids: readonly string[]): CallerNumber[] | undefined {
  const found: CallerNumber[] = [];
  for (const key of callerNumberKeys(tenantId, ids)) {
    const item = itemAt(items, key);
    if (!item) return undefined;
    found.push(callerNumberOf(item));
  }
  return found;
}

export interface SanRef {
  san: string;
  area_codes: string[];
}

/** An account as the caller choice and the call record read it. */
export interface CallerAccountFacts {
  id: string;
  verification_status: VerificationStatus;
  ftc_san_refs: SanRef[];
  provider: TelephonyProviderName;
}

const CALLER_ACCOUNT_FIELDS = ['id', 'verification_status', 'ftc_san_refs', 'provider'] as const;

export const callerAccountKey = (tenantId: string, accountId: string) => keys.telephonyAccount(tenantId, accountId);

export const callerAccountOf = (item: Record<string, unknown>): CallerAccountFacts => ({
  id: item.id as string,
  verification_status: item.verification_status as VerificationStatus,
  ftc_san_refs: (item.ftc_san_refs as SanRef[] | undefined) ?? [],
  provider: item.provider as TelephonyProviderName,
});

/** One account, projected to the caller facts: one strongly consistent GetItem. */
export async function getCallerAccount(tenantId: string, accountId: string): Promise<CallerAccountFacts | undefined> {
  if (!isId(accountId)) return undefined;
  const out = await db().send(
    new GetCommand({ TableName: tableName(), Key: callerAccountKey(tenantId, accountId), ...projectionOf(CALLER_ACCOUNT_FIELDS), ConsistentRead: true }),
  );
  return out.Item ? callerAccountOf(out.Item) : undefined;
}

/** Every account of the tenant, projected to the caller facts: one strongly consistent Query. */
export async function readCallerAccounts(tenantId: string): Promise<CallerAccountFacts[]> {
  const items = await queryCollection(
    { pk: tenantPk(tenantId), prefix: collections.telephonyAccounts },
    { ...projectionOf(CALLER_ACCOUNT_FIELDS), ConsistentRead: true },
  );
  return items.map(callerAccountOf);
}
