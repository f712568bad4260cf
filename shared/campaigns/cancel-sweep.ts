/**
 * After a cancel (see docs/decisions/campaigns.md): every attempt not yet dialling is disposed in bounded time — the
 * next scheduler tick (a minute on AWS, SCHEDULER_TICK_MS locally). Contacts still waiting in
 * the queue: the queue item deleted, the row disposed with sub_code campaign_cancelled, the
 * campaign's `done` + 1 (one transaction each). Attempts still `scheduled`: the call's own
 * cancel transition (campaign_cancelled), which updates the row and counters like any end.
 * Calls already dialling finish with their real outcome. The dispatcher's transition checks
 * the campaign's status, so nothing is dialled once the cancel has committed.
 * Returns true when nothing is left (no queue item, nothing in flight).
 */
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { now } from '../clock.js';
import { db, tableName } from '../db/client.js';
import { campaignKeys } from '../db/keys.js';
import { callEnded } from '../calls/call-ended.js';
import { cancelCampaignCall } from '../repositories/call-lifecycle.js';
import type { CampaignRecord } from '../repositories/campaigns.js';
import { CAMPAIGN_CANCELLED } from './attempt-items.js';

const queryAllOf = async (pk: string, prefix: string, filter?: { expression: string; values: Record<string, unknown> }) => {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)', FilterExpression: filter?.expression, ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix, ...(filter?.values ?? {}) }, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
};

/** Queued contacts disposed per tick (a 10,000-contact campaign is swept in a few ticks; the tick's time stays bounded). */
const SWEEP_BATCH = 2000;
const SWEEP_PARALLEL = 20;

async function disposeQueued(c: CampaignRecord, pk: string, q: Record<string, unknown>, at: string): Promise<void> {
  const contactId = q.contact_id as string;
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: tableName(), Key: { pk, sk: q.sk as string }, ConditionExpression: 'attribute_exists(pk)' } },
          {
            Update: {
              TableName: tableName(),
              Key: campaignKeys.row(c.tenant_id, c.id, contactId),
              UpdateExpression: 'SET row_status = :done, latest_attempt_state = :disposed, sub_code = :sub, disposition = :null, last_activity_at = :at, next_attempt_at = :null',
              ConditionExpression: 'row_status = :pending',
              ExpressionAttributeValues: { ':done': 'done', ':disposed': 'disposed', ':sub': CAMPAIGN_CANCELLED, ':null': null, ':at': at, ':pending': 'pending' },
            },
          },
          { Update: { TableName: tableName(), Key: campaignKeys.campaign(c.tenant_id, c.id), UpdateExpression: 'ADD done :one', ExpressionAttributeValues: { ':one': 1 } } },
        ],
      }),
    );
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
  }
}

export async function sweepCancelled(c: CampaignRecord): Promise<boolean> {
  const pk = campaignKeys.row(c.tenant_id, c.id, 'x').pk;
  const at = now().toISOString();
  const queued = (await queryAllOf(pk, campaignKeys.queuePrefix)).slice(0, SWEEP_BATCH);
  for (let i = 0; i < queued.length; i += SWEEP_PARALLEL) await Promise.all(queued.slice(i, i + SWEEP_PARALLEL).map((q) => disposeQueued(c, pk, q, at)));
  const active = await queryAllOf(pk, campaignKeys.rowsPrefix, { expression: 'row_status = :active AND latest_attempt_state = :scheduled', values: { ':active': 'active', ':scheduled': 'scheduled' } });
  for (let i = 0; i < active.length; i += SWEEP_PARALLEL) {
    await Promise.all(
      active.slice(i, i + SWEEP_PARALLEL).map(async (row) => {
        const result = await cancelCampaignCall(c.tenant_id, row.call_id as string);
        if (result?.ended) await callEnded(result.call, { nudge: false }); // the campaign is cancelled: nothing to launch
      }),
    );
  }
  const left = await queryAllOf(pk, campaignKeys.queuePrefix);
  const k = campaignKeys.campaign(c.tenant_id, c.id);
  const fresh = (await db().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND sk = :sk', ExpressionAttributeValues: { ':pk': k.pk, ':sk': k.sk }, ConsistentRead: true }))).Items?.[0];
  return left.length === 0 && ((fresh?.in_flight as number) ?? 0) <= 0;
}
