/**
 * A campaign's per-contact rows (CampaignOutcomeSummary), in contact order from the
 * campaign's own partition (`TENANT#<t>#CAMPAIGN#<cmp>`, `begins_with(sk, 'CONTACT#')`): a
 * page reads on from its cursor with the declared filters (disposition, has_outcome,
 * sub_code), never the whole campaign again. The same partition holds the campaign's work
 * queue (`QUEUE#<not before>#<con>`): a contact waiting for its next attempt.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import type { TransactItem } from '../db/conditional-transaction.js';
import { campaignKeys, campaignPartition } from '../db/keys.js';
import { queryCollection } from '../db/query.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import type { CampaignOutcomeSummary } from '../schemas/campaigns.js';

const presentOutcomeRow = (r: Record<string, unknown>): CampaignOutcomeSummary => ({
  contact_id: r.contact_id as string,
  contact_phone: r.contact_phone as string,
  attempts: (r.attempts as number) ?? 0,
  latest_attempt_id: r.latest_attempt_id as string,
  latest_attempt_state: r.latest_attempt_state as CampaignOutcomeSummary['latest_attempt_state'],
  disposition: (r.disposition as CampaignOutcomeSummary['disposition']) ?? null,
  sub_code: (r.sub_code as string | null) ?? null,
  call_id: (r.call_id as string | null) ?? null,
  outcome: (r.outcome as CampaignOutcomeSummary['outcome']) ?? null,
  last_activity_at: r.last_activity_at as string,
});

export function listOutcomes(tenantId: string, campaignId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: `campaign_outcomes#${campaignId}`,
    partition: campaignPartition(tenantId, campaignId),
    skPrefix: campaignKeys.rowsPrefix,
    newestFirst: false,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: presentOutcomeRow,
  });
}

/** A row as the launch reads it. */
export interface CampaignRow {
  contact_id: string;
  contact_phone: string;
  attempts: number;
  latest_attempt_id: string;
  latest_attempt_state: string;
  decision: Record<string, unknown>;
}

export async function getCampaignRow(tenantId: string, campaignId: string, contactId: string): Promise<CampaignRow | undefined> {
  const k = campaignKeys.row(tenantId, campaignId, contactId);
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk = :sk',
      ExpressionAttributeValues: { ':pk': k.pk, ':sk': k.sk },
      ConsistentRead: true,
    }),
  );
  return out.Items?.[0] as CampaignRow | undefined;
}

const queryRange = (pk: string, prefix: string, filter?: { expression: string; values: Record<string, unknown> }): Promise<Record<string, unknown>[]> =>
  queryCollection(
    { pk, prefix },
    { ...(filter ? { FilterExpression: filter.expression, ExpressionAttributeValues: filter.values } : {}), ConsistentRead: true },
  );

/** A queued contact: its queue item's sort key and the contact. */
export interface QueuedContact {
  sk: string;
  contact_id: string;
}
const queued = (items: Record<string, unknown>[]): QueuedContact[] => items.map((i) => ({ sk: i.sk as string, contact_id: i.contact_id as string }));

/** The contacts whose next attempt may start at `at`, oldest first, at most `limit`. */
export async function dueQueue(tenantId: string, campaignId: string, at: Date, limit: number): Promise<QueuedContact[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': campaignPartition(tenantId, campaignId),
        ':from': campaignKeys.queuePrefix,
        ':to': `${campaignKeys.queuePrefix}${at.toISOString()}#~`,
      },
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return queued(out.Items ?? []);
}

/** Every queued contact, whatever its instant (the cancel sweep). */
export const allQueued = async (tenantId: string, campaignId: string): Promise<QueuedContact[]> =>
  queued(await queryRange(campaignPartition(tenantId, campaignId), campaignKeys.queuePrefix));

/** Rows whose attempt is launched and still `scheduled` (the cancel sweep): their call ids. */
export const scheduledAttemptCalls = async (tenantId: string, campaignId: string): Promise<string[]> =>
  (
    await queryRange(campaignPartition(tenantId, campaignId), campaignKeys.rowsPrefix, {
      expression: 'row_status = :active AND latest_attempt_state = :scheduled',
      values: { ':active': 'active', ':scheduled': 'scheduled' },
    })
  ).map((r) => r.call_id as string);

/** A launch: the queue item gone (if still there) and the row → active with its new attempt (if still pending at `attempts`). */
export function rowLaunchItems(
  tenantId: string,
  campaignId: string,
  q: QueuedContact,
  attempt: { attempts: number; number: number; attempt_id: string; call_id: string; at: string },
): TransactItem[] {
  return [
    { Delete: { TableName: tableName(), Key: { pk: campaignPartition(tenantId, campaignId), sk: q.sk }, ConditionExpression: 'attribute_exists(pk)' } },
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.row(tenantId, campaignId, q.contact_id),
        UpdateExpression:
          'SET attempts = :n, latest_attempt_id = :att, latest_attempt_state = :scheduled, call_id = :call, disposition = :null, sub_code = :null, row_status = :active, last_activity_at = :at',
        ConditionExpression: 'row_status = :pending AND attempts = :was',
        ExpressionAttributeValues: {
          ':n': attempt.number,
          ':att': attempt.attempt_id,
          ':scheduled': 'scheduled',
          ':call': attempt.call_id,
          ':null': null,
          ':active': 'active',
          ':at': attempt.at,
          ':pending': 'pending',
          ':was': attempt.attempts,
        },
      },
    },
  ];
}

/** A queued contact of a cancelled campaign: the queue item gone and the row done, disposed with `subCode`. */
export function rowDisposeQueuedItems(tenantId: string, campaignId: string, q: QueuedContact, subCode: string, at: string): TransactItem[] {
  return [
    { Delete: { TableName: tableName(), Key: { pk: campaignPartition(tenantId, campaignId), sk: q.sk }, ConditionExpression: 'attribute_exists(pk)' } },
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.row(tenantId, campaignId, q.contact_id),
        UpdateExpression:
          'SET row_status = :done, latest_attempt_state = :disposed, sub_code = :sub, disposition = :null, last_activity_at = :at, next_attempt_at = :null',
        ConditionExpression: 'row_status = :pending',
        ExpressionAttributeValues: { ':done': 'done', ':disposed': 'disposed', ':sub': subCode, ':null': null, ':at': at, ':pending': 'pending' },
      },
    },
  ];
}

/** A scrubbed contact's row (put only if absent: a repeated page counts nobody twice) and, unless blocked, its queue item at `queueAt`. */
export function scrubbedRowItems(
  tenantId: string,
  campaignId: string,
  row: Record<string, unknown> & { contact_id: string },
  queueAt: string | null,
): TransactItem[] {
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: { ...campaignKeys.row(tenantId, campaignId, row.contact_id), type: 'campaign_contact', ...row },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  if (queueAt)
    items.push({
      Put: {
        TableName: tableName(),
        Item: { ...campaignKeys.queue(tenantId, campaignId, queueAt, row.contact_id), type: 'campaign_queue', contact_id: row.contact_id },
      },
    });
  return items;
}
