/**
 * Dispatch: dial a scheduled call at most once (docs/decisions/dispatch-and-carrier.md).
 *
 *  1. Read the call. Not an outbound call in `scheduled` → nothing (a duplicate or
 *     redelivered message, a cancelled call). scheduled_for still ahead → nothing: its due
 *     item will fire (shared/calls/scheduler.ts).
 *  2. Judge it again with fresh inputs on the PINNED version, at now(): an opt-out or a
 *     suppression that arrived since queuing wins. block → scheduled → disposed
 *     (+ call.blocked + call.completed); defer → a new scheduled_for + due item
 *     (+ call.scheduled).
 *  3. allow → a grant of the account's cps_limit (shared/calls/cps-limiter.ts), an instant and
 *     a lane; just before it (the lead: about one transition's time), the lane taken and ONE
 *     transaction: scheduled → dialing (condition: still scheduled), the number's
 *     dials_today + 1 under its daily_dial_cap, the attempt's placed_at, a dialing watch,
 *     the old due item deleted, call.dialing. A failed state condition means another worker
 *     has the call: stop. A failed cap condition: judge again (another number, or defer).
 *  4. At the lane's instant, ask the carrier once (the lane is released a second after its answer). A CallSid → its pointer and the sid on the call, the watch gone.
 *     CarrierRefused (nothing dialled) → failed, carrier's reason, call.completed.
 *     CarrierUnavailable or a crash → left in dialing: the reconciler fails it as
 *     dispatch_unknown. Never retried, never redialled.
 */

import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { now } from '../clock.js';
import { tableName } from '../db/client.js';
import { keys } from '../db/keys.js';
import { transactWrite } from '../db/transact-write.js';
import { idMadeAt } from '../ids.js';
import { logger } from '../observability.js';
import { onCarrierStatus, onDisposedBeforeDial } from '../policy/call-state/machine.js';
import { getAgentVersion } from '../repositories/agents.js';
import { cancelCampaignCall } from '../repositories/call-lifecycle.js';
import { endOfCallWatches } from '../repositories/call-watches.js';
import { type CallRecord, getCall } from '../repositories/calls.js';
import { campaignDialItems, getCampaignSettings } from '../repositories/campaigns.js';
import { attemptPlacedItems } from '../repositories/contact-attempts.js';
import { callTransition, recordProviderSid } from '../repositories/outbound-call-transitions.js';
import {
  dialingWatchDelete,
  dialingWatchPut,
  dueInstantOf,
  dueItemDelete,
  dueItemPut,
  failedConditionIndex,
  type OutboundCallRecord,
} from '../repositories/outbound-calls.js';
import { rollNumberDialDay, utcDay } from '../repositories/phone-numbers.js';
import { getTelephonyAccount, type TelephonyAccountRecord } from '../repositories/telephony-accounts.js';
import { backoff, mayRetry, type RetryPolicy } from '../retry.js';
import type { AgentVersion } from '../schemas/agents.js';
import { providerFor } from '../telephony/carrier-for.js';
import { publicBaseUrl } from '../telephony/endpoints.js';
import { CarrierRefused, type PlaceCallInput, type TelephonyProvider } from '../telephony/provider.js';
import { attemptEndItems } from './attempt-end.js';
import { callEnded } from './call-ended.js';
import { blockedEvent, dialingEvent, scheduledEvent } from './call-outbox-events.js';
import type { CallerNumber } from './compliance-inputs.js';
import {
  acquireDialSlot,
  type DialSlot,
  DialSlotsBusy,
  type HeldLane,
  holdDialLane,
  releaseUnusedLane,
  sendOnLane,
  timedTransition,
  waitUntilDialLead,
} from './cps-limiter.js';
import { DISPATCH_SAFETY_NET_MS, sendDispatch } from './dispatch-queue.js';
import { judgeCall, UnknownCallTarget } from './judge-call.js';
import { parkCall } from './park-call.js';
import { COMPLIANCE_END_REASON, telephonyOf } from './queue-call.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export type DispatchOutcome =
  | 'not_found'
  | 'not_scheduled'
  | 'not_due'
  | 'blocked'
  | 'deferred'
  | 'taken'
  | 'busy'
  | 'dialled'
  | 'refused'
  | 'unknown'
  | 'parked';

export interface DispatchDeps {
  /** The carrier for an account (tests pass a stub; default: carrier-for.ts). */
  provider?: (account: TelephonyAccountRecord) => Promise<TelephonyProvider>;
  /** The longest a dispatcher waits for a cps slot (default cps-limiter's MAX_WAIT_MS). */
  slotWaitMs?: number;
  /**
   * A campaign attempt dialled by the worker that just launched it: the call as the launch wrote
   * it, its pool and pinned version as the launch knew them, so none is read back. The dial's
   * transaction still requires the call scheduled and the campaign running, and the judgement
   * is still made afresh.
   */
  launched?: { call: OutboundCallRecord; numberIds: readonly string[]; version: AgentVersion };
  /** The message was sent alongside the transaction that creates the call (it may not be readable yet). */
  alongsideCommit?: boolean;
}

/** The Delete of the call's current due item, if it has one. */
const dueDelete = (call: OutboundCallRecord): TransactItem[] => {
  const instant = dueInstantOf(call);
  return instant ? [dueItemDelete(call.tenant_id, call.id, instant)] : [];
};

/** Rounds of "the chosen number hit its cap meanwhile: judge again". */
const CAP_ROUNDS = 3;

/** What the carrier is asked (pure): our TwiML and status URLs carry the call id, so callbacks find the call before its CallSid pointer exists. */
export function placeCallInput(call: Pick<OutboundCallRecord, 'id' | 'to_e164'>, from: string, baseUrl: string): PlaceCallInput {
  const q = `call_id=${encodeURIComponent(call.id)}`;
  return {
    to: call.to_e164,
    from,
    twimlUrl: `${baseUrl}/carrier/twilio/outbound?${q}`,
    statusCallbackUrl: `${baseUrl}/carrier/twilio/status?${q}`,
    statusCallbackEvents: ['initiated', 'ringing', 'answered', 'completed'],
    machineDetection: 'Enable',
    timeoutSeconds: 30,
  };
}

/** The number's dials_today + 1, only under its daily cap (the same UTC-day counting as the caller chooser). */
export function dialCountUpdate(tenantId: string, number: Pick<CallerNumber, 'id' | 'dials_day'>, at: Date): TransactItem {
  const day = utcDay(at);
  const common = { TableName: tableName(), Key: keys.phoneNumber(tenantId, number.id) };
  if (number.dials_day === day) {
    return {
      Update: {
        ...common,
        UpdateExpression: 'SET dials_count = dials_count + :one',
        ConditionExpression:
          'attribute_exists(pk) AND #st = :active AND dials_day = :day AND (attribute_not_exists(daily_dial_cap) OR attribute_type(daily_dial_cap, :null) OR dials_count < daily_dial_cap)',
        ExpressionAttributeNames: { '#st': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':day': day, ':active': 'active', ':null': 'NULL' },
      },
    };
  }
  return {
    Update: {
      ...common,
      UpdateExpression: 'SET dials_day = :day, dials_count = :one',
      ConditionExpression: 'attribute_exists(pk) AND #st = :active AND (attribute_not_exists(dials_day) OR dials_day <> :day)',
      ExpressionAttributeNames: { '#st': 'status' },
      ExpressionAttributeValues: { ':one': 1, ':day': day, ':active': 'active' },
    },
  };
}

/** How long after its id was made a call sent alongside its commit may still be committing; past it, the call is not coming. */
export const COMMIT_GRACE_MS = 3_000;
/** How the dispatcher looks again for such a call: soon, then less often. */
const COMMITTING: RetryPolicy = { baseMs: 10, capMs: 250, attempts: 20 };

/**
 * The call, strongly consistent. A message sent alongside the call's creating transaction can
 * outrun its commit: a call not found then is looked for again until COMMIT_GRACE_MS after its
 * id was made (a transaction that failed never commits; one that commits later than that is
 * brought back by its due item).
 */
async function readDispatched(tenantId: string, callId: string, alongsideCommit: boolean): Promise<CallRecord | undefined> {
  for (let attempt = 1; ; attempt++) {
    const call = await getCall(tenantId, callId);
    const made = idMadeAt(callId);
    if (call || !alongsideCommit || made === null || Date.now() - made > COMMIT_GRACE_MS || !mayRetry(COMMITTING, attempt)) return call;
    await backoff(COMMITTING, attempt);
  }
}

export async function dispatchCall(tenantId: string, callId: string, deps: DispatchDeps = {}): Promise<DispatchOutcome> {
  const launched = deps.launched?.call.id === callId ? deps.launched : undefined;
  const stored = launched?.call ?? (await readDispatched(tenantId, callId, deps.alongsideCommit === true));
  if (!stored || stored.direction !== 'outbound') return 'not_found';
  const call = stored as unknown as OutboundCallRecord;
  if (call.state !== 'scheduled') return 'not_scheduled';
  if (call.scheduled_for && Date.parse(call.scheduled_for) > now().getTime()) return 'not_due';
  // A campaign attempt dials only while its campaign runs, and only from its pool (see docs/decisions/campaigns.md).
  let numberIds: readonly string[] | undefined = launched?.numberIds;
  if (call.campaign_id && !launched) {
    const campaign = await getCampaignSettings(tenantId, call.campaign_id);
    if (!campaign) return dispose(call, now(), TARGET_GONE);
    if (campaign.status !== 'running') return campaignNotRunning(call, campaign.status);
    numberIds = campaign.pool_number_ids;
  }
  const version = launched?.version ?? (await getAgentVersion(tenantId, call.agent_version_id));
  // What the call was queued for no longer exists: it can never be dialled, so it ends now
  // rather than being re-sent by the scheduler forever.
  if (!version) return dispose(call, now(), TARGET_GONE);

  let slot: DialSlot | null = null;
  for (let round = 1; round <= CAP_ROUNDS; round++) {
    const at = now();
    const judged = await judgeCall(tenantId, { version, contact_id: call.contact_id }, at, { numberIds }).catch((err: unknown) => {
      if (err instanceof UnknownCallTarget) return undefined;
      throw err;
    });
    if (!judged) return dispose(call, at, TARGET_GONE);
    const { decision } = judged;
    const judgedCall: OutboundCallRecord = { ...call, compliance: decision };
    if (decision.outcome === 'block') return dispose(judgedCall, at);
    if (decision.outcome === 'defer' || !judged.caller) return reschedule(judgedCall, at);

    // The day's first dials of a number each read yesterday's count. Were each to start the day in
    // its own transaction, all but one would fail and judge again, choosing the next number still
    // on yesterday (the fewest dials today), where the same happens; past CAP_ROUNDS the call
    // waited a minute. So the day is started by a write of its own (once a day per number, and by
    // the dials that read it before), and the transaction only counts.
    const day = utcDay(at);
    if (judged.caller.dials_day !== day) await rollNumberDialDay(tenantId, judged.caller.id, day);
    const caller = { ...judged.caller, dials_day: day };
    const account = await getTelephonyAccount(tenantId, caller.telephony_account_id);
    if (!account) throw new Error(`call ${call.id}: telephony account ${caller.telephony_account_id} is gone`);
    const telephony = await telephonyOf(tenantId, caller);
    const provider = await (deps.provider ?? providerFor)(account);
    // One grant per dial: a repeated round keeps the grant it holds (a late one is renewed before the dial).
    if (slot === null || slot.accountId !== account.id) {
      try {
        slot = await acquireDialSlot(tenantId, account.id, account.cps_limit, { maxWaitMs: deps.slotWaitMs, forTransition: true });
      } catch (err) {
        if (!(err instanceof DialSlotsBusy)) throw err;
        // A backlog longer than a worker may wait: hand the call back (nothing else changes) rather
        // than burning the message's receives into the DLQ — a message delayed until the backlog
        // ahead of it is within the wait, not a fixed backoff, and a due item then, should it be lost.
        const at = now().getTime();
        const retryAt = Math.max(at + 1000, err.retryAt ?? 0);
        await transactWrite([dueItemPut(call, new Date(retryAt + DISPATCH_SAFETY_NET_MS).toISOString())]);
        await sendDispatch({ tenant_id: tenantId, attempt_id: call.attempt_id, call_id: call.id }, Math.ceil((retryAt - at) / 1000)).catch((e: unknown) =>
          logger.warn('busy hand-back not sent; its due item brings it back', { call_id: call.id, error: (e as Error)?.message }),
        );
        return 'busy';
      }
    }
    // The transition is made just before the grant's instant (its status checks stay fresh: a
    // pause or cancel that answers first still wins), and the grant's lane taken meanwhile; the
    // dial goes at the instant, or when the lane frees if that is later.
    await waitUntilDialLead(slot.grantAt);
    const held = holdLane(slot, call.id);
    const dialAt = now();
    const dialingAt = dialAt.toISOString();
    const from = { phone_number_id: caller.id, from_e164: caller.phone_e164 };
    const dialing: OutboundCallRecord = {
      ...judgedCall,
      ...from,
      telephony_account_id: caller.telephony_account_id,
      provider: telephony.provider,
      telephony,
      state: 'dialing',
      dialing_at: dialingAt,
    };
    const items: TransactItem[] = [
      callTransition(call, 'scheduled', { state: 'dialing' }, dialAt, {
        dialing_at: dialingAt,
        due_at: null,
        compliance: decision,
        from_e164: caller.phone_e164,
        phone_number_id: caller.id,
        telephony_account_id: caller.telephony_account_id,
        provider: telephony.provider,
        telephony,
      }),
      dialCountUpdate(tenantId, caller, dialAt),
      // The attempt now counts towards the contact's frequency cap (its placed_at, and its day's placements).
      ...attemptPlacedItems(
        { tenant_id: tenantId, contact_id: call.contact_id, attempt_id: call.attempt_id, subject: version.compliance_profile?.subject ?? null },
        dialingAt,
      ),
      dialingWatchPut(call, dialingAt),
      ...dueDelete(call),
      ...dialingEvent(dialing, dialAt, from),
    ];
    // The campaign's check (status = running) and its `dialed` count join the dial: a cancel that commits first wins.
    const campaignIndex = items.length;
    items.push(...campaignDialItems(call, dialAt));
    try {
      await timedTransition(() => transactWrite(items));
    } catch (err) {
      const lane = await held;
      if ('lane' in lane) await releaseUnusedLane(slot, lane);
      const failed = failedConditionIndex(err);
      if (failed === 0) return 'taken'; // another worker moved it first (or it was cancelled)
      if (failed === 1) continue; // the number reached its cap (or changed) meanwhile: judge again
      if (failed === campaignIndex && call.campaign_id) {
        const campaign = await getCampaignSettings(tenantId, call.campaign_id);
        return campaignNotRunning(call, campaign?.status ?? 'cancelled');
      }
      throw err;
    }
    const lane = await held;
    if ('busy' in lane) {
      // Already `dialing`, and no lane freed within the wait: the reconciler fails it (never dialled twice, never over the ceiling).
      logger.warn('no dial lane after the transition; left for the reconciler', { call_id: call.id, error: lane.busy.message });
      return 'unknown';
    }
    return placeOnce(dialing, provider, slot, lane);
  }
  // The numbers keep filling up under us: let the scheduler bring it back in a minute.
  const at = now();
  return reschedule({ ...call }, at, new Date(at.getTime() + 60_000).toISOString());
}

/**
 * A campaign attempt whose campaign is not running: cancelled → disposed (campaign_cancelled);
 * paused (or not started) → parked: its due item moves CAMPAIGN_PAUSED_RECHECK_MS on, with no
 * new scheduled_for and no `call.scheduled` event (shared/calls/park-call.ts).
 */
async function campaignNotRunning(call: OutboundCallRecord, status: string): Promise<DispatchOutcome> {
  if (status === 'cancelled' || status === 'completed') {
    const result = await cancelCampaignCall(call.tenant_id, call.id, now());
    if (result?.ended) await callEnded(call, { nudge: false }); // its campaign launches nothing more
    return 'blocked';
  }
  await parkCall(call, new Date(now().getTime() + CAMPAIGN_PAUSED_RECHECK_MS).toISOString());
  return 'parked';
}

/** A paused campaign's scheduled attempts look again this much later (their due item brings them back). */
const CAMPAIGN_PAUSED_RECHECK_MS = 30_000;

/** A dial waits this long for its lane (the call is already `dialing` by then, so it must not hand back). */
const LANE_WAIT_MS = 30_000;

/** The slot's lane, taken while the transition runs; a lane that does not free within the wait is an outcome, not an error. */
const holdLane = (slot: DialSlot, callId: string): Promise<HeldLane | { busy: DialSlotsBusy }> =>
  holdDialLane(slot, callId, LANE_WAIT_MS).catch((err: unknown) => {
    if (err instanceof DialSlotsBusy) return { busy: err };
    throw err;
  });

async function placeOnce(call: OutboundCallRecord, provider: TelephonyProvider, slot: DialSlot, lane: HeldLane): Promise<DispatchOutcome> {
  let sid: string;
  try {
    // Nothing but the request itself between the lane's instant and the carrier.
    ({ sid } = await sendOnLane(
      slot,
      lane,
      () => holdDialLane(slot, call.id, LANE_WAIT_MS),
      () => provider.placeCall(placeCallInput(call, call.from_e164!, publicBaseUrl())),
    ));
  } catch (err) {
    if (err instanceof CarrierRefused) return refused(call, err);
    // Not dialled, but already `dialing`: the reconciler fails it (never dialled twice, never over the ceiling).
    if (err instanceof DialSlotsBusy) {
      logger.warn('no dial lane after the transition; left for the reconciler', { call_id: call.id });
      return 'unknown';
    }
    // CarrierUnavailable or anything else: it may have dialled. Never retry; the reconciler decides.
    logger.warn('dial outcome unknown; left for the reconciler', { call_id: call.id, error: (err as Error)?.message });
    return 'unknown';
  }
  try {
    if (!(await recordProviderSid(call, sid, call.dialing_at!, now()))) logger.warn('carrier call id already recorded', { call_id: call.id, sid });
  } catch (err) {
    // The dial happened; the status callbacks still find the call by ?call_id=.
    logger.error('could not record the carrier call id', { call_id: call.id, sid, error: (err as Error)?.message });
  }
  return 'dialled';
}

async function refused(call: OutboundCallRecord, err: CarrierRefused): Promise<DispatchOutcome> {
  const at = now();
  const change = { ...onCarrierStatus('dialing', { CallStatus: 'failed' })!, end_reason: `carrier_refused_${err.reason}` };
  const end = {
    state: change.state,
    disposition: change.disposition ?? null,
    disposition_set_by: change.disposition_set_by ?? null,
    end_reason: change.end_reason,
  };
  const watches = endOfCallWatches(call, at);
  try {
    await transactWrite([
      callTransition(call, 'dialing', change, at, watches.fields),
      dialingWatchDelete(call.tenant_id, call.id, call.dialing_at!),
      ...watches.items,
      ...attemptEndItems(call, end, at),
    ]);
  } catch (e) {
    if (failedConditionIndex(e) !== 0) throw e;
    return 'refused';
  }
  await callEnded(call);
  return 'refused';
}

/** Disposed by the system, not by a compliance rule: the pinned version or the contact is gone. */
const TARGET_GONE = { set_by: 'system', end_reason: 'call_target_gone' } as const;

async function dispose(
  call: OutboundCallRecord,
  at: Date,
  why: { set_by: 'compliance' | 'system'; end_reason: string } = { set_by: 'compliance', end_reason: COMPLIANCE_END_REASON },
): Promise<DispatchOutcome> {
  const disposition = call.compliance.disposition ?? 'blocked_by_policy';
  const change = onDisposedBeforeDial('scheduled', { disposition, ...why })!;
  const end = { state: change.state, disposition, disposition_set_by: change.disposition_set_by!, end_reason: change.end_reason! };
  const watches = endOfCallWatches(call, at);
  try {
    await transactWrite([
      callTransition(call, 'scheduled', change, at, { compliance: call.compliance, due_at: null, ...watches.fields }),
      ...dueDelete(call),
      ...watches.items,
      ...blockedEvent(call, end, at),
      ...attemptEndItems(call, end, at),
    ]);
  } catch (err) {
    if (failedConditionIndex(err) === 0) return 'taken';
    throw err;
  }
  await callEnded(call);
  return 'blocked';
}

async function reschedule(call: OutboundCallRecord, at: Date, forced?: string): Promise<DispatchOutcome> {
  const next = forced ?? new Date(call.compliance.next_permitted_at ?? at.getTime() + 60_000).toISOString();
  const items: TransactItem[] = [
    callTransition(call, 'scheduled', { state: 'scheduled' }, at, { scheduled_for: next, due_at: next, compliance: call.compliance }),
    dueItemPut(call, next),
  ];
  if (dueInstantOf(call) !== next) items.push(...dueDelete(call));
  items.push(...scheduledEvent(call, next, at));
  try {
    await transactWrite(items);
  } catch (err) {
    if (failedConditionIndex(err) === 0) return 'taken';
    throw err;
  }
  return 'deferred';
}
