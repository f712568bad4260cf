/**
 * Queuing one call (POST /v1/calls): judge it now with judgeCall (the agent's latest
 * published version, pinned here; the caller number the dispatcher would pick), then ONE
 * transaction of the call record, the contact attempt, the idempotency result, the outbox
 * events and — for a scheduled call — its due item:
 *
 *   allow → scheduled, scheduled_for = now; a dispatch message is sent after the commit
 *           (the due item, DISPATCH_SAFETY_NET_MS on, is the safety net should that send
 *           fail or the message be lost: the scheduler sends it then);
 *   defer → scheduled, scheduled_for = next_permitted_at; the scheduler sends it then;
 *   block → disposed with the decision's disposition (set by compliance), never dialled,
 *           with call.blocked and the final call.completed.
 */

import { now } from '../clock.js';
import { type TransactItem, transactWrite } from '../db/transact-write.js';
import { ID_PREFIX, newId } from '../ids.js';
import { logger } from '../observability.js';
import { onDisposedBeforeDial } from '../policy/call-state/machine.js';
import { analysisWatchPut } from '../repositories/call-watches.js';
import { getCallerAccount } from '../repositories/caller-pool.js';
import { contactAttemptPut } from '../repositories/contact-attempts.js';
import { dueItemPut, type OutboundCallRecord, type OutboundTelephony, outboundCallPut } from '../repositories/outbound-calls.js';
import type { QueueCallRequest } from '../schemas/calls.js';
import type { ContactAttempt } from '../schemas/contact-attempts.js';
import { callEnded } from './call-ended.js';
import { blockedEvent, completedEvent, queuedEvent, scheduledEvent } from './call-outbox-events.js';
import type { EarlyCall } from './compliance-inputs.js';
import { DISPATCH_SAFETY_NET_MS, sendDispatch } from './dispatch-queue.js';
import { type CallJudgement, judgeCall } from './judge-call.js';

/** The end_reason of a call compliance disposed of before dialling. */
export const COMPLIANCE_END_REASON = 'compliance_blocked';

/** The call's carrier side; the caller's account was read with the pool (judgeCall), so no read unless a caller comes without it. */
export async function telephonyOf(tenantId: string, caller: CallJudgement['caller']): Promise<OutboundTelephony> {
  if (!caller) return { provider: null, telephony_account_id: null, phone_number_id: null, from_e164: null, provider_call_sid: null, mock: false };
  const provider = caller.provider !== undefined ? caller.provider : ((await getCallerAccount(tenantId, caller.telephony_account_id))?.provider ?? null);
  return {
    provider,
    telephony_account_id: caller.telephony_account_id,
    phone_number_id: caller.id,
    from_e164: caller.phone_e164,
    provider_call_sid: null,
    mock: provider === 'mock',
  };
}

/** A new outbound call in `scheduled` (scheduled_for unset): POST /v1/calls and a campaign's launch build it alike. */
export function newOutboundCall(
  tenantId: string,
  p: {
    attemptId: string;
    contact: { id: string; phone_e164: string };
    version: { id: string; agent_id: string };
    decision: OutboundCallRecord['compliance'];
    telephony: OutboundTelephony;
    campaignId: string | null;
    origin: OutboundCallRecord['origin'];
    questions: OutboundCallRecord['questions'];
    context: Record<string, string>;
    idempotencyKey: string | null;
    at: string;
  },
): OutboundCallRecord {
  return {
    id: newId('cal'),
    tenant_id: tenantId,
    direction: 'outbound',
    state: 'scheduled',
    disposition: null,
    disposition_set_by: null,
    end_reason: null,
    from_e164: p.telephony.from_e164,
    to_e164: p.contact.phone_e164,
    phone_number_id: p.telephony.phone_number_id,
    telephony_account_id: p.telephony.telephony_account_id,
    provider: p.telephony.provider,
    provider_call_sid: null,
    inbound: null,
    recording_url: null,
    answered_at: null,
    ended_at: null,
    duration_seconds: null,
    attempt_id: p.attemptId,
    contact_id: p.contact.id,
    agent_id: p.version.agent_id,
    agent_version_id: p.version.id,
    campaign_id: p.campaignId,
    origin: p.origin,
    questions: p.questions,
    context: p.context,
    compliance: p.decision,
    scheduled_for: null,
    idempotency_key: p.idempotencyKey,
    telephony: p.telephony,
    dialing_at: null,
    due_at: null,
    created_at: p.at,
    updated_at: p.at,
  };
}

export interface QueuedCall {
  call: OutboundCallRecord;
  attempt: ContactAttempt;
}

/**
 * Judge, build and commit. `extraItems` receives the attempt as answered (the idempotency
 * result joins the same transaction). `early`: the judgement's first reads, started with the
 * request's credential (its instant is "now"). Throws judgeCall's typed errors.
 */
export async function queueCall(
  tenantId: string,
  body: QueueCallRequest,
  opts: { idempotencyKey: string | null; extraItems?: (attempt: ContactAttempt) => TransactItem[]; early?: EarlyCall },
): Promise<QueuedCall> {
  const at = opts.early?.handle.at ?? now();
  const judged = await judgeCall(tenantId, { agent_id: body.agent_id, contact_id: body.contact_id }, at, { early: opts.early });
  const telephony = await telephonyOf(tenantId, judged.caller);
  const iso = at.toISOString();
  const { decision } = judged;
  const base = newOutboundCall(tenantId, {
    attemptId: newId(ID_PREFIX.attempt),
    contact: judged.contact,
    version: judged.agentVersion,
    decision,
    telephony,
    campaignId: null,
    origin: 'api',
    questions: body.questions ?? [],
    context: body.context ?? {},
    idempotencyKey: opts.idempotencyKey,
    at: iso,
  });

  let call: OutboundCallRecord;
  const events: TransactItem[] = [];
  const extra: TransactItem[] = [];
  if (decision.outcome === 'block') {
    const change = onDisposedBeforeDial('scheduled', {
      disposition: decision.disposition ?? 'blocked_by_policy',
      set_by: 'compliance',
      end_reason: COMPLIANCE_END_REASON,
    })!;
    call = {
      ...base,
      state: change.state,
      disposition: change.disposition!,
      disposition_set_by: change.disposition_set_by!,
      end_reason: change.end_reason!,
      ended_at: iso,
      analysis_watch_at: iso,
    };
    events.push(
      ...queuedEvent(call, at),
      ...blockedEvent(call, { disposition: call.disposition!, disposition_set_by: call.disposition_set_by!, end_reason: call.end_reason! }, at),
      // A call queued here is never a campaign's: no campaign items (attempt-end.ts).
      ...completedEvent(
        call,
        { state: call.state, disposition: call.disposition, disposition_set_by: call.disposition_set_by, end_reason: call.end_reason },
        at,
      ),
    );
    // It has ended: it is scored too, and the analysis watch makes sure of it.
    extra.push(analysisWatchPut(call, iso));
  } else {
    const scheduledFor = decision.outcome === 'defer' && decision.next_permitted_at ? new Date(decision.next_permitted_at).toISOString() : iso;
    // An allowed call's dispatch message follows the commit: its due item is only the safety net for that message.
    const dueAt = decision.outcome === 'allow' ? new Date(at.getTime() + DISPATCH_SAFETY_NET_MS).toISOString() : scheduledFor;
    call = { ...base, scheduled_for: scheduledFor, due_at: dueAt };
    events.push(...queuedEvent(call, at), ...scheduledEvent(call, scheduledFor, at));
    extra.push(dueItemPut(call, dueAt));
  }

  const attempt = presentContactAttempt(call);
  const subject = judged.agentVersion.compliance_profile?.subject ?? null;
  // The call's items (record, attempt, events, watches, the idempotency result): one transaction, all or nothing.
  const committed = transactWrite([
    outboundCallPut(call),
    contactAttemptPut({
      id: call.attempt_id,
      tenant_id: tenantId,
      contact_id: call.contact_id,
      subject,
      placed_at: null,
      created_at: iso,
      call_id: call.id,
      agent_id: call.agent_id,
      agent_version_id: call.agent_version_id,
    }),
    ...events,
    ...extra,
    ...(opts.extraItems?.(attempt) ?? []),
  ]);
  // An allowed call's dispatch message goes while its transaction runs, not after (started second:
  // the transaction's request leaves first), so the answer waits for one round trip, not two. It
  // names a call that may not be committed yet (the dispatcher waits for it a moment), or never will
  // be (the transaction failed: the dispatcher finds none and stops). Best effort: the due item
  // written in the transaction makes the scheduler send it should this fail.
  const dispatched =
    decision.outcome === 'allow'
      ? sendDispatch({ tenant_id: tenantId, attempt_id: call.attempt_id, call_id: call.id }, 0, { alongsideCommit: true }).catch((err) =>
          logger.warn('dispatch enqueue failed; the scheduler will send it', { call_id: call.id, error: (err as Error).message }),
        )
      : undefined;
  await Promise.all([committed, dispatched]);

  // A call blocked at queuing has ended: it is scored too (every dimension not_applicable).
  // No nudge: a campaign's call is queued by its launch, which is running now.
  if (decision.outcome === 'block') await callEnded(call, { nudge: false });
  return { call, attempt };
}

/** The ContactAttempt view of an outbound call record (POST /v1/calls answers it). */
function presentContactAttempt(call: OutboundCallRecord): ContactAttempt {
  return {
    id: call.attempt_id,
    call_id: call.id,
    contact_id: call.contact_id,
    agent_id: call.agent_id,
    agent_version_id: call.agent_version_id,
    campaign_id: call.campaign_id,
    origin: call.origin,
    state: call.state,
    disposition: call.disposition,
    scheduled_for: call.scheduled_for,
    compliance: call.compliance as ContactAttempt['compliance'],
    telephony: { ...call.telephony, provider_call_sid: call.provider_call_sid ?? call.telephony.provider_call_sid },
    questions: call.questions as ContactAttempt['questions'],
    context: call.context,
    created_at: call.created_at,
    updated_at: call.updated_at,
  };
}
