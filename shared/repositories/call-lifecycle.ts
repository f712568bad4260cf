/**
 * An outbound call's carrier lifecycle after dispatch: the CallSid link, status callbacks
 * and the answer through the state machine (shared/policy/call-state), cancellation before
 * the dial, and the stored analysis. Every transition is ONE conditional transaction with
 * its outbox events (shared/events/outbox.ts):
 *
 *   → answered                 call.answered
 *   → any terminal state       call.completed (exactly once: the transition is conditional
 *                              on the state it was computed from, and a terminal state never
 *                              changes, so a replay or a reordered callback finds nothing to do)
 *   analysis stored            call.analysis_ready (conditional on no analysis yet)
 *
 * A transition that loses a race (the runtime moved answered → in_conversation, or another
 * callback got there first) re-reads the call and recomputes; a change that has become
 * null is simply done.
 */

import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction, noChange } from '../db/conditional-transaction.js';
import { callKeys, platformKeys } from '../db/keys.js';
import { callEventData } from '../events/call-event-data.js';
import { type EventType, outboxItems } from '../events/outbox.js';
import { completedDisposition } from '../policy/call-state/disposition.js';
import { type CarrierStatus, isTerminal, onCarrierStatus, onDisposedBeforeDial, type StateChange } from '../policy/call-state/machine.js';
import type { CallRecordWithEvents } from '../schemas/call-aggregates.js';
import { callSidLinkItems } from './call-sid-link.js';
import { addStateChange } from './call-state-update.js';
import { analysisWatchDelete, endOfCallWatches, unfinishedWatchDelete } from './call-watches.js';
import { type CallRecord, getCall, type MinutesMeter } from './calls.js';
import { CAMPAIGN_CANCELLED, type CampaignCallFacts, campaignEndItems, campaignSettleItems } from './campaign-attempt-items.js';
import { campaignSlotReleaseItem } from './campaigns.js';
import { dueInstantOf, dueItemDelete } from './outbound-calls.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export class CallSidMismatch extends Error {
  constructor() {
    super('The call is already linked to another CallSid, or the CallSid to another call');
  }
}

/**
 * A callback (or the TwiML fetch) for an outbound call may arrive before dispatch stored the
 * CallSid: link it now (the pointer and `provider_call_sid`, and — for a call not ended yet —
 * its unfinished watch, as dispatch's recordProviderSid would have), idempotently. A call
 * already linked to this sid is fine; to another sid (or the sid to another call) → CallSidMismatch.
 */
export async function linkCarrierCall(call: CallRecord, callSid: string, at: Date): Promise<void> {
  if (call.provider_call_sid === callSid) {
    const pointer = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.carrierCall(callSid), ConsistentRead: true }));
    if (pointer.Item) {
      if (pointer.Item.call_id !== call.id || pointer.Item.tenant_id !== call.tenant_id) throw new CallSidMismatch();
      return;
    }
  } else if (call.provider_call_sid) {
    throw new CallSidMismatch();
  }
  // A call that already ended needs no watch (a link racing its end leaves one the reconciler drops).
  const watch = !call.provider_call_sid && !isTerminal(call.state) ? at.toISOString() : null;
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: callSidLinkItems(call, callSid, { telephony: Boolean(call.telephony), watchAt: watch, sameSidOk: true }),
      }),
    );
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
    // The pointer (or the call's sid) was written meanwhile: fine only if both name this call and sid.
    const pointer = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.carrierCall(callSid), ConsistentRead: true }));
    const fresh = await getCall(call.tenant_id, call.id);
    if (pointer.Item?.call_id !== call.id || pointer.Item?.tenant_id !== call.tenant_id || (fresh?.provider_call_sid && fresh.provider_call_sid !== callSid))
      throw new CallSidMismatch();
    if (fresh && !fresh.provider_call_sid) await linkCarrierCall(fresh, callSid, at);
  }
}

/** What a change on an outbound call stores: an answered call that completes gets its derived disposition. */
export function outboundChange(call: CallRecordWithEvents, change: StateChange | null): StateChange | null {
  if (!change) return null;
  if (change.state === 'completed' && change.disposition === undefined) return { ...change, ...completedDisposition(call) };
  return change;
}

/** What a transition adds beside its state change. */
export interface TransitionExtra {
  sets: string[];
  values: Record<string, unknown>;
  /** The duration this transition stores first, and the meter of its telephony minutes (committed with it). */
  minutes?: { durationSeconds: number; meter: MinutesMeter };
  /** An ending whose carrier leg still plays (a voicemail drop after `machine`): the campaign slot stays taken until the final callback. */
  holdSlot?: boolean;
  /** The final callback of a call that ended earlier: free its held campaign slot. */
  releaseHeldSlot?: boolean;
}

export interface TransitionResult {
  /** The call as read before the change that was stored (or the last read when none was). */
  call: CallRecordWithEvents;
  /** The change stored, or null when there was nothing to do. */
  change: StateChange | null;
  /** This transition ended the call (send it to analysis). */
  ended: boolean;
  /** This transition freed a campaign slot held since an earlier ending (nudge the campaign). */
  slotFreed?: boolean;
}

/**
 * Store `compute(call)` on the call under a condition on its state and event count, with
 * its outbox events; retried on a lost race. `extra` adds SET clauses computed from the call
 * (e.g. the duration on the final callback of an already-ended call). Exported for the
 * dispatch side (e.g. the reconciler: `applyCallTransition(t, id, (c) => onDispatchUnknown(c.state))`
 * commits the failure with its call.completed); hand the call to `callEnded` when `ended`.
 */
export async function applyCallTransition(
  tenantId: string,
  callId: string,
  compute: (call: CallRecordWithEvents) => StateChange | null,
  extra: (call: CallRecordWithEvents, change: StateChange | null) => TransitionExtra = () => ({ sets: [], values: {} }),
  now: Date,
): Promise<TransitionResult | undefined> {
  return conditionalTransaction<TransitionResult | undefined>({
    decide: async () => {
      const call = (await getCall(tenantId, callId)) as CallRecordWithEvents | undefined;
      if (!call) return noChange(undefined);
      const change = compute(call);
      const more = extra(call, change);
      const freesHeldSlot = !change && Boolean(more.releaseHeldSlot && call.campaign_slot_held);
      if (!change && more.sets.length === 0 && !freesHeldSlot) return noChange({ call, change: null, ended: false, slotFreed: false });
      const at = now.toISOString();
      const names: Record<string, string> = { '#state': 'state', '#event_count': 'event_count' };
      const values: Record<string, unknown> = { ':from': call.state, ':now': at, ...more.values };
      const sets = ['updated_at = :now', ...more.sets];
      const items: TransactItem[] = [];
      const holdsSlot = Boolean(
        change && isTerminal(change.state) && more.holdSlot && call.campaign_id && (call as unknown as CampaignCallFacts).campaign_attempt,
      );
      if (change) {
        addStateChange({ sets, names, values }, change);
        // Leaving `scheduled` (a cancel): its due item goes with it, as with dispatch's own moves.
        const due =
          call.state === 'scheduled' && change.state !== 'scheduled'
            ? dueInstantOf({ due_at: call.due_at ?? null, scheduled_for: call.scheduled_for ?? null })
            : null;
        if (due) {
          items.push(dueItemDelete(tenantId, callId, due));
          sets.push('due_at = :noDue');
          values[':noDue'] = null;
        }
        const events: EventType[] = [];
        if (change.state === 'answered') events.push('call.answered');
        if (isTerminal(change.state)) {
          events.push('call.completed');
          // Ended: its analysis watch starts, its unfinished watch (if the carrier had it) goes,
          // unless the slot is held: then it stays, so a lost final callback still frees the slot.
          const watches = endOfCallWatches({ tenant_id: tenantId, id: callId, unfinished_watch_at: holdsSlot ? null : call.unfinished_watch_at }, now);
          items.push(...watches.items);
          for (const [field, value] of Object.entries(watches.fields)) {
            sets.push(`${field} = :w_${field}`);
            values[`:w_${field}`] = value;
          }
        }
        for (const type of events) items.push(...outboxItems(tenantId, type, { ...callEventData(call, change), at }, now).items);
        // A campaign attempt's end: its row and the campaign's counters, exactly once with the terminal transition.
        if (isTerminal(change.state))
          items.push(
            ...campaignEndItems(
              call as unknown as CampaignCallFacts,
              { state: change.state, disposition: change.disposition ?? call.disposition ?? null, end_reason: change.end_reason ?? call.end_reason ?? null },
              now,
              { releaseSlot: !holdsSlot },
            ),
          );
        if (holdsSlot) {
          sets.push('campaign_slot_held = :held');
          values[':held'] = true;
        }
      }
      if (freesHeldSlot) {
        items.push(...campaignSlotReleaseItem(call, now));
        sets.push('campaign_slot_held = :held');
        values[':held'] = false;
        if (call.unfinished_watch_at) {
          items.push(unfinishedWatchDelete(tenantId, callId, call.unfinished_watch_at));
          sets.push('unfinished_watch_at = :noUnfinished');
          values[':noUnfinished'] = null;
        }
      }
      // The duration is stored once, here: the call's telephony minutes are final and metered with it.
      if (more.minutes) items.push(...(await more.minutes.meter(tenantId, call, more.minutes.durationSeconds, now)));
      let condition = 'attribute_exists(pk) AND #state = :from';
      if (call.event_count === undefined) condition += ' AND attribute_not_exists(#event_count)';
      else {
        condition += ' AND #event_count = :ec';
        values[':ec'] = call.event_count;
      }
      items.unshift({
        Update: {
          TableName: tableName(),
          Key: callKeys.call(tenantId, callId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      });
      return commit(items, { call, change, ended: Boolean(change && isTerminal(change.state)), slotFreed: freesHeldSlot });
    },
  });
}

/**
 * A status callback (or the TwiML fetch's CallStatus/AnsweredBy) on an outbound call. The
 * final callback of a call that already ended (e.g. `machine` at the answer) adds its
 * duration and ended_at once, changing nothing else. A status with a duration needs `meter`
 * (its minutes are metered in the transaction that stores it); only the TwiML fetch, which
 * carries none, goes without.
 */
export function applyOutboundStatus(
  call: Pick<CallRecord, 'tenant_id' | 'id'>,
  status: CarrierStatus,
  durationSeconds: number | null,
  now: Date,
  meter?: MinutesMeter,
): Promise<TransitionResult | undefined> {
  if (durationSeconds !== null && !meter) throw new Error(`call ${call.id}: a status with a duration needs the minutes meter`);
  return applyCallTransition(
    call.tenant_id,
    call.id,
    (c) => outboundChange(c, onCarrierStatus(c.state, status)),
    (c, change) => {
      const ending = (change && isTerminal(change.state)) || isTerminal(c.state);
      const finalCallback = ['completed', 'busy', 'no-answer', 'failed', 'canceled'].includes(status.CallStatus);
      const sets: string[] = [];
      const values: Record<string, unknown> = {};
      const storesDuration = ending && durationSeconds !== null && c.duration_seconds === null;
      if (storesDuration) {
        sets.push('duration_seconds = if_not_exists(duration_seconds, :d)');
        values[':d'] = durationSeconds;
      }
      if (!change && isTerminal(c.state) && finalCallback && c.ended_at === null) sets.push('ended_at = if_not_exists(ended_at, :now)');
      return {
        sets,
        values,
        ...(storesDuration ? { minutes: { durationSeconds: durationSeconds!, meter: meter! } } : {}),
        holdSlot: !finalCallback,
        releaseHeldSlot: finalCallback,
      };
    },
    now,
  );
}

/**
 * The tenant cancelled the call before it was dialled (POST /v1/calls/{id}/cancel):
 * `disposed` with `end_reason: "cancelled"`. No the contract disposition describes a tenant's own
 * cancel (they are outcomes of a call or of a policy), so `disposition` and
 * `disposition_set_by` stay null (docs/decisions.md "Cancelling a call").
 */
export const CANCEL_END_REASON = 'cancelled';

export function cancelChange(call: Pick<CallRecord, 'direction' | 'state'>): StateChange | null {
  if (call.direction !== 'outbound') return null;
  const change = onDisposedBeforeDial(call.state, { disposition: 'cancelled', set_by: 'system', end_reason: CANCEL_END_REASON });
  return change ? ({ ...change, disposition: null, disposition_set_by: null } as unknown as StateChange) : null;
}

/** A campaign cancelled before this attempt was dialled: disposed, end_reason campaign_cancelled (the row's sub_code). */
function campaignCancelChange(call: Pick<CallRecord, 'direction' | 'state'>): StateChange | null {
  const change = cancelChange(call);
  return change ? { ...change, end_reason: CAMPAIGN_CANCELLED } : null;
}

export async function cancelCampaignCall(tenantId: string, callId: string, now: Date): Promise<TransitionResult | undefined> {
  return applyCallTransition(tenantId, callId, campaignCancelChange, undefined, now);
}

export async function cancelCall(tenantId: string, callId: string, now: Date): Promise<TransitionResult | undefined> {
  return applyCallTransition(tenantId, callId, cancelChange, undefined, now);
}

/**
 * Store the analysis once (conditional: none stored yet) with its call.analysis_ready event;
 * the call's analysis watch goes in the same transaction.
 * false: already analysed (a redelivered or re-sent message), nothing written.
 */
export async function storeAnalysis(
  call: CallRecord,
  stored: Record<string, unknown>,
  summary: Record<string, unknown>,
  now: Date,
  settle?: { disposition: string; disposition_set_by: string },
  producedItems: TransactItem[] = [],
): Promise<boolean> {
  const at = now.toISOString();
  // A completed call whose runtime reported after the carrier's final callback: its disposition settles here, once, under a condition on the state and the disposition read.
  const settleSet = settle ? ', disposition = :d, disposition_set_by = :sb' : '';
  const settleCondition = settle ? ' AND #state = :completed AND disposition = :was' : '';
  const settleValues = settle ? { ':d': settle.disposition, ':sb': settle.disposition_set_by, ':completed': 'completed', ':was': call.disposition } : {};
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: callKeys.call(call.tenant_id, call.id),
              UpdateExpression: `SET analysis = :a, analyzed_at = :now, updated_at = :now, analysis_watch_at = :noWatch${settleSet}`,
              ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(analysis)${settleCondition}`,
              ...(settle ? { ExpressionAttributeNames: { '#state': 'state' } } : {}),
              ExpressionAttributeValues: { ':a': stored, ':now': at, ':noWatch': null, ...settleValues },
            },
          },
          ...(call.analysis_watch_at ? [analysisWatchDelete(call.tenant_id, call.id, call.analysis_watch_at)] : []),
          ...outboxItems(call.tenant_id, 'call.analysis_ready', { ...callEventData(call), ...(settle ?? {}), ...summary, at }, now).items,
          // A campaign attempt whose disposition settles here: its row and completed_goal follow.
          ...(settle ? campaignSettleItems(call as unknown as CampaignCallFacts, settle.disposition, now) : []),
          // What the call produced, stored exactly once with its analysis (the survey response).
          ...producedItems,
        ],
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof TransactionCanceledException && err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
    throw err;
  }
}
