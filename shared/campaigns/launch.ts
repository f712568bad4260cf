/**
 * Launching attempts of a running campaign (see docs/decisions/campaigns.md), each tick: the queue items due now
 * (`QUEUE#<not before>#<con>`, oldest first), as many as `concurrency_cap − in_flight`
 * allows. Per contact ONE transaction: the queue item deleted (if still there), the
 * campaign's `in_flight` + 1 under its cap and only while it runs, the row → active with
 * the new attempt, and the call exactly as POST /v1/calls writes a scheduled one (the call,
 * its contact attempt, call.queued + call.scheduled, its due item). The dispatch message
 * follows; the dispatcher then re-judges, takes a cps slot of the account (shared with
 * single calls), a number of the pool under its daily cap, and dials once.
 */
import { QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { now } from '../clock.js';
import { db, tableName } from '../db/client.js';
import { campaignKeys } from '../db/keys.js';
import { ID_PREFIX, newId } from '../ids.js';
import { logger } from '../observability.js';
import type { CampaignRecord } from '../repositories/campaigns.js';
import { contactAttemptPut } from '../repositories/contact-attempts.js';
import { dueItemPut, outboundCallPut, type OutboundCallRecord } from '../repositories/outbound-calls.js';
import { queuedEvent, scheduledEvent } from '../calls/call-events.js';
import { sendDispatch } from '../calls/dispatch-queue.js';
import { newOutboundCall, telephonyOf } from '../calls/queue-call.js';
import { launchable } from './rules.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The most attempts one tick launches for a campaign without a concurrency cap. */
const LAUNCH_BATCH = 100;
const PARALLEL = 10;

interface Row {
  contact_id: string;
  contact_phone: string;
  attempts: number;
  latest_attempt_id: string;
  latest_attempt_state: string;
  decision: OutboundCallRecord['compliance'];
}

async function launchOne(c: CampaignRecord, queueSk: string, contactId: string, at: Date): Promise<OutboundCallRecord | null> {
  const rowKey = campaignKeys.row(c.tenant_id, c.id, contactId);
  const row = (await db().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND sk = :sk', ExpressionAttributeValues: { ':pk': rowKey.pk, ':sk': rowKey.sk }, ConsistentRead: true }))).Items?.[0] as Row | undefined;
  if (!row) return null;
  const iso = at.toISOString();
  const number = row.attempts + 1;
  const attemptId = row.attempts === 0 && row.latest_attempt_state === 'scrubbed' ? row.latest_attempt_id : newId(ID_PREFIX.attempt);
  const call: OutboundCallRecord = {
    ...newOutboundCall(c.tenant_id, {
      attemptId,
      contact: { id: contactId, phone_e164: row.contact_phone },
      version: { id: c.agent_version_id!, agent_id: c.agent_definition_id },
      decision: row.decision,
      telephony: await telephonyOf(c.tenant_id, null),
      campaignId: c.id,
      origin: 'campaign',
      questions: [],
      context: {},
      idempotencyKey: null,
      at: iso,
    }),
    scheduled_for: iso,
    due_at: iso,
    campaign_attempt: { number, max_attempts: c.max_attempts_per_contact, retry_after_minutes: c.retry_after_minutes },
  };
  const capCondition = c.concurrency_cap === null ? '' : ' AND in_flight < :cap';
  const items: TransactItem[] = [
    { Delete: { TableName: tableName(), Key: { pk: rowKey.pk, sk: queueSk }, ConditionExpression: 'attribute_exists(pk)' } },
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.campaign(c.tenant_id, c.id),
        UpdateExpression: 'ADD in_flight :one',
        ConditionExpression: `#status = :running${capCondition}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':running': 'running', ...(c.concurrency_cap === null ? {} : { ':cap': c.concurrency_cap }) },
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: rowKey,
        UpdateExpression: 'SET attempts = :n, latest_attempt_id = :att, latest_attempt_state = :scheduled, call_id = :call, disposition = :null, sub_code = :null, row_status = :active, last_activity_at = :at',
        ConditionExpression: 'row_status = :pending AND attempts = :was',
        ExpressionAttributeValues: { ':n': number, ':att': attemptId, ':scheduled': 'scheduled', ':call': call.id, ':null': null, ':active': 'active', ':at': iso, ':pending': 'pending', ':was': row.attempts },
      },
    },
    outboundCallPut(call),
    contactAttemptPut({ id: attemptId, tenant_id: c.tenant_id, contact_id: contactId, subject: c.subject ?? null, placed_at: null, created_at: iso, call_id: call.id, agent_id: call.agent_id, agent_version_id: call.agent_version_id }),
    ...queuedEvent(call, at),
    ...scheduledEvent(call, iso, at),
    dueItemPut(call, iso),
  ];
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    if (err instanceof TransactionCanceledException) return null; // another tick took it, the cap is full, or the campaign stopped
    throw err;
  }
  return call;
}

/** Launch what the cap allows now; returns the number launched. */
export async function launchAttempts(c: CampaignRecord, at = now()): Promise<number> {
  const n = launchable(c.concurrency_cap, c.in_flight ?? 0, LAUNCH_BATCH);
  if (n === 0) return 0;
  const pk = campaignKeys.row(c.tenant_id, c.id, 'x').pk;
  const due = await db().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to', ExpressionAttributeValues: { ':pk': pk, ':from': campaignKeys.queuePrefix, ':to': `${campaignKeys.queuePrefix}${at.toISOString()}#~` }, Limit: n, ConsistentRead: true }),
  );
  let launched = 0;
  const items = due.Items ?? [];
  for (let i = 0; i < items.length; i += PARALLEL) {
    await Promise.all(
      items.slice(i, i + PARALLEL).map(async (item) => {
        const call = await launchOne(c, item.sk as string, item.contact_id as string, at);
        if (!call) return;
        launched++;
        // Best effort: the due item written with the call makes the scheduler send it should this fail.
        await sendDispatch({ tenant_id: c.tenant_id, attempt_id: call.attempt_id, call_id: call.id }).catch((err) => logger.warn('dispatch enqueue failed; the scheduler will send it', { call_id: call.id, error: (err as Error).message }));
      }),
    );
  }
  return launched;
}
