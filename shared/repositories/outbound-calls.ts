/**
 * Outbound calls (see docs/decisions/dispatch-and-carrier.md): the call record a POST /v1/calls creates, and the item builders
 * the queue route, the dispatcher, the scheduler and the reconciler put in their own
 * transactions. Stored like inbound calls (shared/repositories/calls.ts): `callKeys.call` +
 * `callKeys.callIndex`, `type: 'call'`, every CallRecord field, plus the attempt's fields.
 *
 * At most once: the only way to dial is the conditional transition scheduled → dialing
 * (`callTransition`, with a dialing watch), which outbound-call-transitions.ts holds with the
 * carrier's call id's link: queuing a call bundles neither.
 */

import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { callKeys, dispatchKeys } from '../db/keys.js';
import type { CampaignAttemptInfo } from '../policy/campaigns/rules.js';
import type { CallRecord } from '../schemas/call-record.js';
import type { CallDecision, QueueCallRequest } from '../schemas/calls.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface OutboundTelephony {
  provider: 'twilio' | 'mock' | null;
  telephony_account_id: string | null;
  phone_number_id: string | null;
  from_e164: string | null;
  provider_call_sid: string | null;
  /** true for sandbox (mock) accounts. */
  mock: boolean;
}

/**
 * An outbound call. The caller-number fields are null only when no number could be chosen
 * (a call blocked or deferred for `no_caller_number`); the dispatcher fills them at dial
 * time with the number it dials from.
 */
export interface OutboundCallRecord extends Omit<CallRecord, 'provider_call_sid' | 'from_e164' | 'telephony_account_id' | 'provider' | 'direction'> {
  direction: 'outbound';
  provider_call_sid: string | null;
  from_e164: string | null;
  telephony_account_id: string | null;
  provider: 'twilio' | 'mock' | null;
  /** `att_…`: the contact attempt (ATTEMPT# item in the contact's partition). */
  attempt_id: string;
  contact_id: string;
  agent_id: string;
  agent_version_id: string;
  /** The campaign this attempt belongs to (see docs/decisions/campaigns.md); null for a single call. */
  campaign_id: string | null;
  origin: 'api' | 'campaign';
  /** A campaign attempt's number and the campaign's retry settings (shared/policy/campaigns/rules.ts). */
  campaign_attempt?: CampaignAttemptInfo | null;
  /** The campaign's counter shard its launch took a slot on (docs/capacity.md): its dial and its end count there. */
  campaign_shard?: number | null;
  questions: NonNullable<QueueCallRequest['questions']>;
  context: Record<string, string>;
  /** The compliance decision of the latest judgement, verbatim. */
  compliance: CallDecision;
  /** When the call may be dialled (ISO); null for a call disposed at queuing. */
  scheduled_for: string | null;
  idempotency_key: string | null;
  telephony: OutboundTelephony;
  dialing_at: string | null;
  /**
   * The instant (sort key) of the call's current due item while it is scheduled: the
   * scheduler re-arms it after each send, so a lost or dead-lettered dispatch message is
   * sent again; whoever moves the call on deletes it. null once the call left `scheduled`.
   */
  due_at: string | null;
}

/** The key instant of the call's current due item (older records: scheduled_for). */
export const dueInstantOf = (call: Pick<OutboundCallRecord, 'due_at' | 'scheduled_for'>): string | null => call.due_at ?? call.scheduled_for ?? null;

/**
 * Move a scheduled call's due item from `from` (its current one; null: it has none) to `to`,
 * with the call's `due_at`, in one transaction. False when the call is no longer scheduled
 * on `from` (dialled, disposed, rescheduled, or re-armed meanwhile): nothing was written.
 */
export async function moveDueItem(call: OutboundCallRecord, from: string | null, to: string): Promise<boolean> {
  const onFrom = from
    ? 'due_at = :from OR ((attribute_not_exists(due_at) OR attribute_type(due_at, :null)) AND scheduled_for = :from)'
    : 'attribute_not_exists(due_at) OR attribute_type(due_at, :null)';
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: callKeys.call(call.tenant_id, call.id),
              UpdateExpression: 'SET due_at = :to',
              ConditionExpression: `#state = :scheduled AND (${onFrom})`,
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ':to': to, ':scheduled': 'scheduled', ':null': 'NULL', ...(from ? { ':from': from } : {}) },
            },
          },
          ...(from ? [dueItemDelete(call.tenant_id, call.id, from)] : []),
          dueItemPut(call, to),
        ],
      }),
    );
    return true;
  } catch (err) {
    if (failedConditionIndex(err) !== 0) throw err;
    return false;
  }
}

/** The Put that stores a new outbound call (only if absent). Unset stamps are not stored (if_not_exists sets them once). */
export function outboundCallPut(call: OutboundCallRecord): TransactItem {
  const item = Object.fromEntries(Object.entries(call).filter(([k, v]) => !['answered_at', 'ended_at', 'duration_seconds'].includes(k) || v !== null));
  return {
    Put: {
      TableName: tableName(),
      Item: { ...callKeys.call(call.tenant_id, call.id), ...callKeys.callIndex(call.tenant_id, call.id), type: 'call', ...item },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The due item that makes the scheduler send a dispatch message at `scheduled_for`. */
export function dueItemPut(call: Pick<OutboundCallRecord, 'tenant_id' | 'id' | 'attempt_id'>, scheduledFor: string): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...dispatchKeys.due(scheduledFor, call.tenant_id, call.id),
        type: 'dispatch_due',
        tenant_id: call.tenant_id,
        call_id: call.id,
        attempt_id: call.attempt_id,
        scheduled_for: scheduledFor,
      },
    },
  };
}
export const dueItemDelete = (tenantId: string, callId: string, scheduledFor: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: dispatchKeys.due(scheduledFor, tenantId, callId) },
});

export function dialingWatchPut(call: Pick<OutboundCallRecord, 'tenant_id' | 'id'>, dialingAt: string): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...dispatchKeys.dialing(dialingAt, call.tenant_id, call.id),
        type: 'dialing_watch',
        tenant_id: call.tenant_id,
        call_id: call.id,
        dialing_at: dialingAt,
      },
    },
  };
}
export const dialingWatchDelete = (tenantId: string, callId: string, dialingAt: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: dispatchKeys.dialing(dialingAt, tenantId, callId) },
});

import { failedConditionIndex } from '../db/transact-write.js';

export { failedConditionIndex };
