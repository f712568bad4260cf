/**
 * Launching attempts of a running campaign (see docs/decisions/campaigns.md), each tick: the queue items due now
 * (`QUEUE#<not before>#<con>`, oldest first), as many as `concurrency_cap − in_flight`
 * allows. Per contact ONE transaction: the queue item deleted (if still there), a counter
 * shard's `in_flight` + 1 under its share of the cap and only while the campaign runs (the
 * shard with the most room; a shard that filled meanwhile → the next one), the row → active with
 * the new attempt, and the call exactly as POST /v1/calls writes a scheduled one (the call,
 * its contact attempt, call.queued + call.scheduled, its due item). The dispatch message
 * follows; the dispatcher then re-judges, takes a cps slot of the account (shared with
 * single calls), a number of the pool under its daily cap, and dials once.
 */

import { queuedEvent, scheduledEvent } from '../calls/call-outbox-events.js';
import { DISPATCH_SAFETY_NET_MS, sendDispatch } from '../calls/dispatch-queue.js';
import { newOutboundCall, telephonyOf } from '../calls/queue-call.js';
import { now } from '../clock.js';
import { failedConditionIndex, type TransactItem, transactWrite } from '../db/transact-write.js';
import { ID_PREFIX, newId } from '../ids.js';
import { logger } from '../observability.js';
import { launchable, launchShards } from '../policy/campaigns/rules.js';
import { dueQueue, getCampaignRow, type QueuedContact, rowLaunchItems } from '../repositories/campaign-outcomes.js';
import { type CampaignRecord, launchSlotItem } from '../repositories/campaigns.js';
import { contactAttemptPut } from '../repositories/contact-attempts.js';
import { dueItemPut, type OutboundCallRecord, outboundCallPut } from '../repositories/outbound-calls.js';

/** The most attempts one tick launches for a campaign without a concurrency cap. */
const LAUNCH_BATCH = 100;
const PARALLEL = 10;

/** Shards a launch refused by its shard tries next (each try is one transaction). */
const SHARD_TRIES = 3;

async function launchOne(c: CampaignRecord, q: QueuedContact, at: Date, shards: (number | null)[]): Promise<OutboundCallRecord | null> {
  const row = await getCampaignRow(c.tenant_id, c.id, q.contact_id);
  if (!row) return null;
  const iso = at.toISOString();
  const safetyNet = new Date(at.getTime() + DISPATCH_SAFETY_NET_MS).toISOString();
  const number = row.attempts + 1;
  const attemptId = row.attempts === 0 && row.latest_attempt_state === 'scrubbed' ? row.latest_attempt_id : newId(ID_PREFIX.attempt);
  const base: OutboundCallRecord = {
    ...newOutboundCall(c.tenant_id, {
      attemptId,
      contact: { id: q.contact_id, phone_e164: row.contact_phone },
      version: { id: c.agent_version_id!, agent_id: c.agent_definition_id },
      decision: row.decision as unknown as OutboundCallRecord['compliance'],
      telephony: await telephonyOf(c.tenant_id, null),
      campaignId: c.id,
      origin: 'campaign',
      questions: [],
      context: {},
      idempotencyKey: null,
      at: iso,
    }),
    scheduled_for: iso,
    // The dispatch message follows the launch: the due item is its safety net only (a due item firing at once would send a second dispatch).
    due_at: safetyNet,
    campaign_attempt: { number, max_attempts: c.max_attempts_per_contact, retry_after_minutes: c.retry_after_minutes },
  };
  const [queueDelete, rowUpdate] = rowLaunchItems(c.tenant_id, c.id, q, { attempts: row.attempts, number, attempt_id: attemptId, call_id: base.id, at: iso });
  for (const shard of shards.slice(0, SHARD_TRIES)) {
    const call: OutboundCallRecord = { ...base, campaign_shard: shard };
    try {
      await transactWrite(launchItems(c, q, call, shard, [queueDelete!, rowUpdate!], at));
      return call;
    } catch (err) {
      if ((err as { name?: string }).name !== 'TransactionCanceledException') throw err;
      // The shard is full (another launcher took its room) or the campaign stopped: the next shard. Anything else (another tick took the contact): nothing launched.
      if (failedConditionIndex(err) !== 1) return null;
    }
  }
  return null;
}

function launchItems(
  c: CampaignRecord,
  q: QueuedContact,
  call: OutboundCallRecord,
  shard: number | null,
  row: [TransactItem, TransactItem],
  at: Date,
): TransactItem[] {
  const [queueDelete, rowUpdate] = row;
  const iso = call.created_at;
  const attemptId = call.attempt_id;
  return [
    queueDelete,
    launchSlotItem(c, shard),
    rowUpdate,
    outboundCallPut(call),
    contactAttemptPut({
      id: attemptId,
      tenant_id: c.tenant_id,
      contact_id: q.contact_id,
      subject: c.subject ?? null,
      placed_at: null,
      created_at: iso,
      call_id: call.id,
      agent_id: call.agent_id,
      agent_version_id: call.agent_version_id,
    }),
    ...queuedEvent(call, at),
    ...scheduledEvent(call, iso, at),
    dueItemPut(call, call.due_at!),
  ];
}

/** How a launched attempt reaches the dispatcher: a call-dispatch message (default), or dialled in this worker. */
export type DispatchLaunched = (call: OutboundCallRecord) => Promise<void>;

const enqueue: DispatchLaunched = (call) => sendDispatch({ tenant_id: call.tenant_id, attempt_id: call.attempt_id, call_id: call.id });

/** Launch what the cap allows now; returns the number launched. */
export async function launchAttempts(c: CampaignRecord, at = now(), dispatch: DispatchLaunched = enqueue): Promise<number> {
  const shards = c.shards ?? [];
  // Each launch's shard, planned from the read (the most room first); a campaign started before shards counts on its item.
  const plan: (number | null)[] =
    shards.length > 0
      ? launchShards(shards, LAUNCH_BATCH).map((i) => shards[i]!.shard)
      : Array.from({ length: launchable(c.concurrency_cap, c.in_flight ?? 0, LAUNCH_BATCH) }, () => null);
  if (plan.length === 0) return 0;
  const items = await dueQueue(c.tenant_id, c.id, at, plan.length);
  // A refused shard's launch tries the others in turn.
  const triesFrom = (k: number) => (shards.length > 0 ? [plan[k]!, ...shards.map((s) => s.shard).filter((s) => s !== plan[k])] : [null]);
  let launched = 0;
  for (let i = 0; i < items.length; i += PARALLEL) {
    await Promise.all(
      items.slice(i, i + PARALLEL).map(async (item, j) => {
        const call = await launchOne(c, item, at, triesFrom(i + j));
        if (!call) return;
        launched++;
        // Best effort: the due item written with the call makes the scheduler send it should this fail.
        await dispatch(call).catch((err) => logger.warn('dispatch failed; the scheduler will send it', { call_id: call.id, error: (err as Error).message }));
      }),
    );
  }
  return launched;
}
