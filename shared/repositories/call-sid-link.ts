/**
 * Linking a carrier's CallSid to a call: the platform pointer the carrier's callbacks find the
 * call by (put only if the sid is new), the sid on the call, and — while the carrier has the
 * call — its unfinished watch. Dispatch links when the carrier answers the dial; a callback
 * that beat dispatch links from the callback; an inbound call is created with its pointer.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../db/client.js';
import { callKeys, platformKeys } from '../db/keys.js';
import { unfinishedWatchPut } from './call-watches.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

interface LinkedCall {
  tenant_id: string;
  id: string;
  telephony_account_id: string | null;
}

/** The CallSid → call pointer, only if no call holds the sid yet. */
export const carrierCallPointerPut = (call: LinkedCall, sid: string): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...platformKeys.carrierCall(sid),
      type: 'carrier_call',
      tenant_id: call.tenant_id,
      call_id: call.id,
      telephony_account_id: call.telephony_account_id,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

export interface LinkOptions {
  /** Also set the sid inside the call's `telephony` block (outbound calls have one). */
  telephony: boolean;
  /** Start the unfinished watch at this instant (null: the call already ended, or it has one). */
  watchAt: string | null;
  /** Stamp `updated_at` with this instant. */
  updatedAt?: string;
  /** A call already holding this same sid passes (a callback re-linking); otherwise the sid must be unset. */
  sameSidOk: boolean;
}

/** The pointer, the call's update (item 1, conditioned on its sid) and the watch: one transaction's items. */
export function callSidLinkItems(call: LinkedCall, sid: string, opts: LinkOptions): TransactItem[] {
  const sets = ['provider_call_sid = :sid'];
  const values: Record<string, unknown> = { ':sid': sid, ':null': 'NULL' };
  if (opts.telephony) sets.push('telephony.provider_call_sid = :sid');
  if (opts.watchAt) {
    sets.push('unfinished_watch_at = :watch');
    values[':watch'] = opts.watchAt;
  }
  if (opts.updatedAt) {
    sets.push('updated_at = :now');
    values[':now'] = opts.updatedAt;
  }
  const unset = 'attribute_not_exists(provider_call_sid) OR attribute_type(provider_call_sid, :null)';
  return [
    carrierCallPointerPut(call, sid),
    {
      Update: {
        TableName: tableName(),
        Key: callKeys.call(call.tenant_id, call.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: opts.sameSidOk
          ? `attribute_exists(pk) AND (${unset} OR provider_call_sid = :sid)`
          : 'attribute_exists(pk) AND attribute_type(provider_call_sid, :null)',
        ExpressionAttributeValues: values,
      },
    },
    ...(opts.watchAt ? [unfinishedWatchPut(call, opts.watchAt)] : []),
  ];
}
