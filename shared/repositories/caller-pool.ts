/**
 * What a call's or a text's caller choice reads of the tenant's phone numbers and telephony
 * accounts (shared/policy/caller-number.ts): each number's state and dial count, each account's
 * verification, SAN refs and carrier, never its sealed credentials. Apart from
 * phone-numbers.ts and telephony-accounts.ts (claims, provisioning, connecting, verifying,
 * lists) so the call and text paths' bundles carry these reads and none of the write sides,
 * the secret box or the schemas.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
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

/** Every number of the tenant, projected to what the caller choice reads: one strongly consistent Query. */
export async function readCallerNumbers(tenantId: string): Promise<CallerNumber[]> {
  const items = await queryCollection({ pk: tenantPk(tenantId), prefix: collections.phoneNumbers }, { ...projectionOf(CALLER_FIELDS), ConsistentRead: true });
  return items.map(
    (n) =>
      ({
        ...n,
        a2p_campaign_ref: (n.a2p_campaign_ref as string | null) ?? null,
        daily_dial_cap: (n.daily_dial_cap as number | null) ?? null,
        dials_day: (n.dials_day as string | null) ?? null,
        dials_count: (n.dials_count as number) ?? 0,
      }) as CallerNumber,
  );
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
