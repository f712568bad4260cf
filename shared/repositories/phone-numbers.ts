/**
 * Phone numbers. A number lives in its tenant's partition (`NUMBER#<pnb>`) and is claimed
 * platform-wide (`PLATFORM#NUMBER#<e164>` / `CLAIM`) in the same transaction, so one number
 * belongs to at most one tenant and a carrier callback's `To` finds its tenant in one read.
 * Changes are conditional on `revision`, so a route change never overwrites one it did not see.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { collections, keys, platformKeys } from '../db/keys.js';
import { revisionUpdateItem, updateItem } from '../db/update.js';
import { isId, newId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import type { InboundRouteMode, NumberCapability, NumberStatus } from '../policy/telephony-states.js';
import { NUMBER_E164 } from '../schemas/phone.js';
import type { PhoneNumberSummary } from '../schemas/phone-numbers.js';
import { type CallerNumber, numbersVersionBump } from './caller-pool.js';

/** The stored number: what the caller choice reads (caller-pool.ts) and the rest. */
export interface PhoneNumberRecord extends CallerNumber {
  tenant_id: string;
  provider_sid: string | null;
  /**
   * How we came to hold it: `bought` from the carrier by us (POST without provider_sid) or
   * `connected` (the customer's own number, POST with provider_sid). Only a bought number is
   * given back to the carrier when the account is deleted. Absent on numbers created before.
   */
  acquired?: 'bought' | 'connected';
  assigned_at: string | null;
  inbound_agent_id: string | null;
  inbound_route_mode: InboundRouteMode;
  inbound_voicemail_greeting: string | null;
  /** The answering policy version in force when the route is `policy` (null before any PUT). */
  policy_version: number | null;
  revision: number;
  updated_at: string;
}

export interface NumberClaim {
  phone_e164: string;
  tenant_id: string;
  number_id: string;
  telephony_account_id: string;
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Another tenant (or this one) already holds the number. */
export class NumberTaken extends Error {}
/** The number changed since it was read. */
export class NumberChanged extends Error {}

export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

export function presentPhoneNumber(n: PhoneNumberRecord, now: Date): PhoneNumberSummary {
  return {
    id: n.id,
    phone_e164: n.phone_e164,
    telephony_account_id: n.telephony_account_id,
    provider_sid: n.provider_sid,
    capabilities: n.capabilities,
    a2p_campaign_ref: n.a2p_campaign_ref,
    status: n.status,
    assigned_at: n.assigned_at,
    daily_dial_cap: n.daily_dial_cap,
    dials_today: n.dials_day === utcDay(now) ? n.dials_count : 0,
    reputation_state: n.reputation_state,
    inbound_agent_id: n.inbound_agent_id,
    inbound_route_mode: n.inbound_route_mode,
    inbound_voicemail_greeting: n.inbound_voicemail_greeting,
    created_at: n.created_at,
  };
}

/**
 * Store a new number as `provisioning` together with its platform claim; NumberTaken when
 * the claim exists. `extra` joins the same transaction (an idempotency record, say).
 */
export async function claimPhoneNumber(input: {
  tenantId: string;
  phoneE164: string;
  telephonyAccountId: string;
  acquired: 'bought' | 'connected';
  capabilities: NumberCapability[];
  a2pCampaignRef?: string;
  dailyDialCap?: number;
  /** The instant claimed: created_at and updated_at. */
  at: Date;
}): Promise<PhoneNumberRecord> {
  const now = input.at.toISOString();
  const record: PhoneNumberRecord = {
    id: newId('pnb'),
    tenant_id: input.tenantId,
    phone_e164: input.phoneE164,
    telephony_account_id: input.telephonyAccountId,
    provider_sid: null,
    acquired: input.acquired,
    capabilities: input.capabilities,
    a2p_campaign_ref: input.a2pCampaignRef ?? null,
    status: 'provisioning',
    assigned_at: null,
    daily_dial_cap: input.dailyDialCap ?? null,
    dials_day: null,
    dials_count: 0,
    reputation_state: 'clean',
    inbound_agent_id: null,
    inbound_route_mode: 'agent',
    inbound_voicemail_greeting: null,
    policy_version: null,
    revision: 1,
    created_at: now,
    updated_at: now,
  };
  const claim: NumberClaim = {
    phone_e164: record.phone_e164,
    tenant_id: record.tenant_id,
    number_id: record.id,
    telephony_account_id: record.telephony_account_id,
  };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...platformKeys.numberClaim(record.phone_e164), type: 'number_claim', ...claim, created_at: now },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.phoneNumber(record.tenant_id, record.id), type: 'phone_number', ...record },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          numbersVersionBump(record.tenant_id),
        ],
      }),
    );
  } catch (err) {
    if (err instanceof TransactionCanceledException && err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed')
      throw new NumberTaken(record.phone_e164);
    throw err;
  }
  return record;
}

/** The carrier confirmed the number: provisioning → active. */
export function activatePhoneNumber(number: PhoneNumberRecord, providerSid: string, now: Date): Promise<PhoneNumberRecord> {
  return updatePhoneNumber(number, { status: 'active', provider_sid: providerSid, assigned_at: now.toISOString() }, { fromStatus: 'provisioning', now });
}

/** The carrier refused the number: the claim and the record go, as if never made. */
export async function releaseUnprovisionedNumber(number: PhoneNumberRecord): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Delete: {
            TableName: tableName(),
            Key: platformKeys.numberClaim(number.phone_e164),
            ConditionExpression: 'number_id = :id',
            ExpressionAttributeValues: { ':id': number.id },
          },
        },
        {
          Delete: {
            TableName: tableName(),
            Key: keys.phoneNumber(number.tenant_id, number.id),
            ConditionExpression: '#s = :provisioning',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':provisioning': 'provisioning' },
          },
        },
        numbersVersionBump(number.tenant_id),
      ],
    }),
  );
}

/** The number went back to the carrier (account deletion): `released`, whatever it was. */
export async function markNumberReleased(tenantId: string, numberId: string, at: Date): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.phoneNumber(tenantId, numberId),
      UpdateExpression: 'SET #s = :released, released_at = :at',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':released': 'released', ':at': at.toISOString() },
    }),
  );
}

/**
 * Starts the number's dial count for `day` (at 0) unless it counts that day already. Every dial
 * that read the number before the day's first dial tries this; one sets it and the others find it
 * set, which is as good. The dial's own transaction then only adds one (dialCountUpdate's same-day
 * form), so the roll-over cannot fail it. Any other stored day is replaced, as the transaction's
 * own new-day form does: a dial whose clock reads an earlier day than the stored one must still
 * count, not be refused round after round.
 */
export async function rollNumberDialDay(tenantId: string, numberId: string, day: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.phoneNumber(tenantId, numberId),
        UpdateExpression: 'SET dials_day = :day, dials_count = :zero',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(dials_day) OR dials_day <> :day)',
        ExpressionAttributeValues: { ':day': day, ':zero': 0 },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}

export async function getPhoneNumber(tenantId: string, numberId: string): Promise<PhoneNumberRecord | undefined> {
  if (!isId(numberId)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.phoneNumber(tenantId, numberId), ConsistentRead: true }));
  return out.Item as PhoneNumberRecord | undefined;
}

export async function getNumberClaim(phoneE164: string): Promise<NumberClaim | undefined> {
  // Carrier callbacks pass unauthenticated `To`/`From` here: only a number can be a key.
  if (!NUMBER_E164.test(phoneE164)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.numberClaim(phoneE164), ConsistentRead: true }));
  return out.Item as NumberClaim | undefined;
}

/** A page of the tenant's numbers, presented at `now` (dials_today counts `now`'s UTC day). */
export function listPhoneNumbers(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }, now: Date) {
  return queryPage({
    tenantId,
    scope: 'phone_numbers',
    skPrefix: collections.phoneNumbers,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: (item) => presentPhoneNumber(item as unknown as PhoneNumberRecord, now),
  });
}

type NumberChanges = Partial<Omit<PhoneNumberRecord, 'id' | 'tenant_id' | 'phone_e164' | 'telephony_account_id' | 'revision' | 'created_at'>>;

/** The update item for `changes` on the number as read (condition: same revision). */
export function phoneNumberUpdateItem(
  expected: PhoneNumberRecord,
  changes: NumberChanges,
  opts: { fromStatus?: NumberStatus; now: Date },
): { item: TransactItem; next: PhoneNumberRecord } {
  // Only activation changes a number still being provisioned: its revision must stay as
  // claimed, or the activation that follows the carrier's purchase would fail.
  const also = opts.fromStatus
    ? { expression: '#st = :from', names: { '#st': 'status' }, values: { ':from': opts.fromStatus } }
    : { expression: '#st <> :provisioning', names: { '#st': 'status' }, values: { ':provisioning': 'provisioning' } };
  return revisionUpdateItem(keys.phoneNumber(expected.tenant_id, expected.id), expected, changes, opts.now, also);
}

export async function updatePhoneNumber(
  expected: PhoneNumberRecord,
  changes: NumberChanges,
  opts: { fromStatus?: NumberStatus; now: Date },
): Promise<PhoneNumberRecord> {
  const { item, next } = phoneNumberUpdateItem(expected, changes, opts);
  if (!(await updateItem(item))) throw new NumberChanged('the phone number changed concurrently');
  return next;
}
