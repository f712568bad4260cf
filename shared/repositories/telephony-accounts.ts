/**
 * Telephony accounts: a tenant's connection to a carrier. Credentials are sealed
 * (shared/crypto/secret-box.ts) with the tenant and account as context and never leave
 * the functions that talk to the carrier. Every status change is a conditional update on
 * the state it was read in (`revision`), so concurrent verifies cannot interleave.
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { open, seal } from '../crypto/secret-box.js';
import { db, tableName } from '../db/client.js';
import { collections, keys, platformKeys } from '../db/keys.js';
import { revisionUpdateItem, updateItem } from '../db/update.js';
import { isId } from '../ids.js';
import { type Page, queryPage } from '../pagination/page.js';
import type { TelephonyProviderName, VerificationStatus } from '../policy/telephony-states.js';
import type { TelephonyMode, TwilioCredentials, telephonyAccountSummary } from '../schemas/telephony.js';
import type { SanRef } from './caller-pool.js';

export interface TelephonyAccountRecord {
  id: string;
  tenant_id: string;
  mode: TelephonyMode;
  provider: TelephonyProviderName;
  /** secret-box output; null when the account holds none (managed, mock). */
  credentials_sealed: string | null;
  /**
   * mock only: the sandbox carrier account made for this telephony account (its own SID
   * and auth token, sealed), so each mock account's numbers and calls are its own.
   */
  sandbox_credentials_sealed?: string | null;
  cps_limit: number | null;
  a2p_brand_ref: string | null;
  ftc_san_refs: SanRef[];
  verification_status: VerificationStatus;
  verified_at: string | null;
  /** Bumped on every write; the condition of every transition. */
  revision: number;
  created_at: string;
  updated_at: string;
}

export class AccountChanged extends Error {}

const sealContext = (tenantId: string, accountId: string) => ({ purpose: 'carrier_credentials', tenant_id: tenantId, account_id: accountId });

export const sealCredentials = (tenantId: string, accountId: string, creds: TwilioCredentials) => seal(JSON.stringify(creds), sealContext(tenantId, accountId));

const sandboxSealContext = (tenantId: string, accountId: string) => ({ purpose: 'sandbox_credentials', tenant_id: tenantId, account_id: accountId });

export async function openSandboxCredentials(account: TelephonyAccountRecord): Promise<TwilioCredentials | null> {
  if (!account.sandbox_credentials_sealed) return null;
  return JSON.parse(await open(account.sandbox_credentials_sealed, sandboxSealContext(account.tenant_id, account.id))) as TwilioCredentials;
}

export async function openCredentials(account: TelephonyAccountRecord): Promise<TwilioCredentials | null> {
  if (!account.credentials_sealed) return null;
  return JSON.parse(await open(account.credentials_sealed, sealContext(account.tenant_id, account.id))) as TwilioCredentials;
}

/**
 * Stores a new account (`pending`). `sandbox`: a mock account's own sandbox carrier account,
 * made by the caller (shared/telephony/connect-account.ts) before this is stored.
 */
export async function createTelephonyAccount(input: {
  id: string;
  tenantId: string;
  mode: TelephonyMode;
  provider: TelephonyProviderName;
  credentials?: TwilioCredentials;
  sandbox?: TwilioCredentials;
  a2pBrandRef?: string;
  ftcSanRefs?: SanRef[];
  /** The instant connected: created_at and updated_at. */
  at: Date;
}): Promise<TelephonyAccountRecord> {
  const now = input.at.toISOString();
  const { id, sandbox } = input;
  const record: TelephonyAccountRecord = {
    id,
    tenant_id: input.tenantId,
    mode: input.mode,
    provider: input.provider,
    credentials_sealed: input.credentials ? await sealCredentials(input.tenantId, id, input.credentials) : null,
    sandbox_credentials_sealed: sandbox ? await seal(JSON.stringify(sandbox), sandboxSealContext(input.tenantId, id)) : null,
    cps_limit: null,
    a2p_brand_ref: input.a2pBrandRef ?? null,
    ftc_san_refs: input.ftcSanRefs ?? [],
    verification_status: 'pending',
    verified_at: null,
    revision: 1,
    created_at: now,
    updated_at: now,
  };
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.telephonyAccount(input.tenantId, id), type: 'telephony_account', ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  const carrierSid = input.credentials?.account_sid ?? sandbox?.account_sid;
  if (carrierSid) await recordCarrierAccountUse(carrierSid, input.tenantId, id);
  return record;
}

/**
 * Note that a tenant account uses a carrier account SID. A hint only (callbacks for numbers
 * no tenant holds are attributed through it, and always re-checked against the account's
 * current credentials), so an entry outliving a credential change is harmless.
 */
export async function recordCarrierAccountUse(accountSid: string, tenantId: string, accountId: string): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...platformKeys.carrierAccountUse(accountSid, tenantId, accountId), type: 'carrier_account_use', tenant_id: tenantId, account_id: accountId },
    }),
  );
}

/** The tenant accounts that have used this carrier account SID (at most a page of 25). */
export async function carrierAccountUses(accountSid: string): Promise<{ tenant_id: string; account_id: string }[]> {
  if (!/^AC[0-9a-fA-F]{32}$/.test(accountSid)) return [];
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': platformKeys.carrierAccountPartition(accountSid) },
      Limit: 25,
    }),
  );
  return (out.Items ?? []).map((i) => ({ tenant_id: i.tenant_id as string, account_id: i.account_id as string }));
}

export async function getTelephonyAccount(tenantId: string, accountId: string): Promise<TelephonyAccountRecord | undefined> {
  if (!isId(accountId)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.telephonyAccount(tenantId, accountId), ConsistentRead: true }));
  return out.Item as TelephonyAccountRecord | undefined;
}

export function listTelephonyAccounts(tenantId: string, opts: { limit: number; cursor?: string }): Promise<Page<z.infer<typeof telephonyAccountSummary>>> {
  return queryPage({
    tenantId,
    scope: 'telephony_accounts',
    skPrefix: collections.telephonyAccounts,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: (item) => presentTelephonyAccount(item as unknown as TelephonyAccountRecord),
  });
}

/**
 * Apply `changes` if the account is still at `expected.revision`; returns the new record.
 * Throws AccountChanged when another write got there first.
 */
export async function updateTelephonyAccount(
  expected: TelephonyAccountRecord,
  changes: Partial<Omit<TelephonyAccountRecord, 'id' | 'tenant_id' | 'mode' | 'provider' | 'revision' | 'created_at'>>,
  at: Date,
): Promise<TelephonyAccountRecord> {
  const { item, next } = revisionUpdateItem(keys.telephonyAccount(expected.tenant_id, expected.id), expected, changes, at);
  if (!(await updateItem(item))) throw new AccountChanged('the telephony account changed concurrently');
  return next;
}

/** Managed accounts are metered by the platform (it pays the carrier); BYO accounts are billed by their own carrier. */
export function presentTelephonyAccount(a: TelephonyAccountRecord): z.infer<typeof telephonyAccountSummary> {
  return {
    id: a.id,
    mode: a.mode,
    provider: a.provider,
    credentials_stored: a.credentials_sealed !== null,
    cps_limit: a.cps_limit,
    a2p_brand_ref: a.a2p_brand_ref,
    ftc_san_refs: a.ftc_san_refs,
    verification_status: a.verification_status,
    verified_at: a.verified_at,
    telephony_minutes_metered: a.mode === 'managed',
    created_at: a.created_at,
  };
}
