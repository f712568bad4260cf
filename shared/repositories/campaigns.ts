/**
 * Campaigns (see docs/decisions/campaigns.md): the campaign item (`TENANT#<t>` / `CAMPAIGN#<cmp>`), its exact
 * counters — on S counter shards (`TENANT#<t>#CAMPAIGN#<cmp>#COUNTERS#<i>`, docs/capacity.md), each with its
 * share of the cap and a copy of the status, read back as their sums — and its status moves — each ONE conditional write on the status it leaves
 * (monotonic: completed and cancelled never change). Its per-contact rows and work queue
 * live in its own partition (shared/db/keys.ts `campaignKeys`); shared/campaigns/ drives it.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { batchGetItems, itemAt } from '../db/batch-get.js';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction, noChange } from '../db/conditional-transaction.js';
import { campaignKeys } from '../db/keys.js';
import { type EventType, outboxItems } from '../events/outbox.js';
import { isId, newId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import type { CampaignStatus } from '../policy/campaigns/rules.js';
import { CAMPAIGN_MOVES, type CampaignAction, counterShardsFor, MAX_COUNTER_SHARDS, SCRUB_OPEN_STATUSES, shardCap } from '../policy/campaigns/rules.js';
import type { CampaignSummary } from '../schemas/campaigns.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface CampaignRecord extends CampaignSummary {
  tenant_id: string;
  /** Attempts of the campaign between their launch and their end. */
  in_flight: number;
  /** Targeted contacts with their terminal outcome. */
  done: number;
  scrub_complete: boolean;
  /** The gsi1 key the scrub resumes after (null: from the start). */
  scrub_cursor: Record<string, unknown> | null;
  /** The pool's numbers as the campaign started (the dispatcher chooses among them). */
  pool_number_ids: string[];
  /** The pinned version's compliance subject (contact attempts count per subject). */
  subject?: string | null;
  /** Until when a driver tick holds the campaign (shared/campaigns/driver.ts). */
  lease_until?: string | null;
  /** Set once the cancel sweep disposed every attempt not yet dialling. */
  cancel_swept?: boolean;
  /** How many counter shards the campaign has (set at its start; absent: its counters are on this item alone). */
  counter_shards?: number;
  /** Read, never stored: each shard's slots in use and share of the cap (getCampaign). */
  shards?: CounterShard[];
}

interface CounterShard {
  shard: number;
  in_flight: number;
  cap: number | null;
}

/** The counters an attempt moves: on its shard, summed over the shards (and the item's own) when read. */
const COUNTERS = ['in_flight', 'dialed', 'connected', 'completed_goal', 'done'] as const;

export const presentCampaign = (c: Record<string, unknown>): CampaignSummary => {
  const r = c as unknown as CampaignRecord;
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    agent_definition_id: r.agent_definition_id,
    agent_version_id: r.agent_version_id ?? null,
    target: { contact_list_id: r.target.contact_list_id },
    number_pool_id: r.number_pool_id,
    telephony_account_id: r.telephony_account_id,
    compliance_profile_id: r.compliance_profile_id ?? null,
    scrub_run_id: r.scrub_run_id ?? null,
    scrub: r.scrub ?? null,
    max_attempts_per_contact: r.max_attempts_per_contact,
    concurrency_cap: r.concurrency_cap ?? null,
    retry_after_minutes: r.retry_after_minutes,
    contacts_total: r.contacts_total ?? 0,
    dialed: r.dialed ?? 0,
    connected: r.connected ?? 0,
    completed_goal: r.completed_goal ?? 0,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
};

export function newCampaign(
  tenantId: string,
  fields: Pick<
    CampaignSummary,
    | 'name'
    | 'agent_definition_id'
    | 'target'
    | 'number_pool_id'
    | 'telephony_account_id'
    | 'compliance_profile_id'
    | 'max_attempts_per_contact'
    | 'concurrency_cap'
    | 'retry_after_minutes'
  >,
  createdAt: Date,
): CampaignRecord {
  const at = createdAt.toISOString();
  return {
    ...fields,
    id: newId('cmp'),
    tenant_id: tenantId,
    status: 'draft',
    agent_version_id: null,
    scrub_run_id: null,
    scrub: null,
    contacts_total: 0,
    dialed: 0,
    connected: 0,
    completed_goal: 0,
    in_flight: 0,
    done: 0,
    scrub_complete: false,
    scrub_cursor: null,
    pool_number_ids: [],
    created_at: at,
    updated_at: at,
  };
}

const campaignPut = (c: CampaignRecord): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...campaignKeys.campaign(c.tenant_id, c.id), type: 'campaign', ...c },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

const shardKeys = (tenantId: string, campaignId: string, n: number) => Array.from({ length: n }, (_, i) => campaignKeys.counters(tenantId, campaignId, i));

/** The campaign with its shards' counters added to the item's own (the scrub's and the cancel sweep's `done` stay on the item). */
function withShards(item: Record<string, unknown>, shards: (Record<string, unknown> | undefined)[]): CampaignRecord {
  const c = { ...item } as unknown as CampaignRecord & Record<string, number>;
  const found = shards.flatMap((s) => (s ? [s] : []));
  for (const field of COUNTERS) c[field] = found.reduce((sum, s) => sum + ((s[field] as number) ?? 0), (item[field] as number) ?? 0);
  c.shards = found.map((s) => ({ shard: s.shard as number, in_flight: (s.in_flight as number) ?? 0, cap: (s.cap as number | null) ?? null }));
  return c;
}

/** The campaign item and every shard it may have, in ONE BatchGetItem (a shard not there is simply not found). */
export async function getCampaign(tenantId: string, campaignId: string): Promise<CampaignRecord | undefined> {
  if (!isId(campaignId)) return undefined;
  const key = campaignKeys.campaign(tenantId, campaignId);
  const shards = shardKeys(tenantId, campaignId, MAX_COUNTER_SHARDS);
  const items = await batchGetItems([key, ...shards]);
  const item = itemAt(items, key);
  return item
    ? withShards(
        item,
        shards.map((k) => itemAt(items, k)),
      )
    : undefined;
}

/** The campaign's status and settings without its counters (one GetItem): what the dispatcher checks. */
export async function getCampaignSettings(tenantId: string, campaignId: string): Promise<CampaignRecord | undefined> {
  if (!isId(campaignId)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: campaignKeys.campaign(tenantId, campaignId), ConsistentRead: true }));
  return out.Item as CampaignRecord | undefined;
}

/** The counter shards a campaign starts with: S from its cap, each with its share and the campaign's status. */
export function counterShardPuts(
  c: Pick<CampaignRecord, 'tenant_id' | 'id' | 'concurrency_cap'>,
  status: CampaignStatus,
): { shards: number; items: TransactItem[] } {
  const cap = c.concurrency_cap ?? null;
  const n = counterShardsFor(cap);
  const items = shardKeys(c.tenant_id, c.id, n).map(
    (key, i): TransactItem => ({
      Put: {
        TableName: tableName(),
        Item: {
          ...key,
          type: 'campaign_counters',
          tenant_id: c.tenant_id,
          campaign_id: c.id,
          shard: i,
          status,
          cap: shardCap(cap, n, i),
          ...Object.fromEntries(COUNTERS.map((f) => [f, 0])),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    }),
  );
  return { shards: n, items };
}

/** Every shard follows a status move in the move's own transaction, so a shard's `status = running` is the campaign's. */
const shardStatusItems = (c: Pick<CampaignRecord, 'tenant_id' | 'id' | 'counter_shards'>, status: CampaignStatus): TransactItem[] =>
  shardKeys(c.tenant_id, c.id, c.counter_shards ?? 0).map((Key) => ({
    Update: {
      TableName: tableName(),
      Key,
      UpdateExpression: 'SET #status = :status',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status },
    },
  }));

export async function listCampaigns(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  const page = await queryPage({
    tenantId,
    scope: 'campaigns',
    skPrefix: campaignKeys.campaignsPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: (item) => item,
  });
  // The page's shards, 100 keys a read: a page's counters are their sums as getCampaign's are.
  const keys = page.data.flatMap((c) => shardKeys(tenantId, c.id as string, (c.counter_shards as number | undefined) ?? 0));
  const found = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < keys.length; i += 100) for (const [k, v] of await batchGetItems(keys.slice(i, i + 100))) found.set(k, v);
  const shardsOf = (c: Record<string, unknown>) =>
    shardKeys(tenantId, c.id as string, (c.counter_shards as number | undefined) ?? 0).map((k) => itemAt(found, k));
  return { ...page, data: page.data.map((c) => presentCampaign(withShards(c, shardsOf(c)) as unknown as Record<string, unknown>)) };
}

/** The campaign event a status move commits with it (outbox; docs/decisions/campaigns.md). */
const campaignEvent = (c: Pick<CampaignRecord, 'tenant_id' | 'id'>, status: CampaignStatus, from: CampaignStatus, at: Date): TransactItem[] =>
  outboxItems(c.tenant_id, `campaign.${status}` as EventType, { campaign_id: c.id, status, previous_status: from, at: at.toISOString() }, at).items;

/** The driver's marker: the scheduler tick works on this campaign. */
export const activeMarkerPut = (tenantId: string, campaignId: string): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...campaignKeys.active(tenantId, campaignId), type: 'campaign_active', tenant_id: tenantId, campaign_id: campaignId },
  },
});
export const activeMarkerDelete = (tenantId: string, campaignId: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: campaignKeys.active(tenantId, campaignId) },
});

export class CampaignStatusConflict extends Error {
  constructor(readonly status: CampaignStatus) {
    super(`the campaign is ${status}`);
  }
}

/**
 * Move the campaign from one of `action`'s source statuses to `to`, with `sets` and `extra`
 * items in the same transaction, conditional on the status read. Undefined: no such
 * campaign; CampaignStatusConflict: its status does not permit the move.
 */
export async function moveCampaign(
  tenantId: string,
  campaignId: string,
  action: CampaignAction,
  to: CampaignStatus,
  at: Date,
  opts: { sets?: Record<string, unknown>; extra?: (c: CampaignRecord) => TransactItem[] } = {},
): Promise<CampaignRecord | undefined> {
  const sets = { ...(opts.sets ?? {}), status: to, updated_at: at.toISOString() };
  const names = Object.fromEntries(Object.keys(sets).map((k, i) => [`#f${i}`, k]));
  const values = Object.fromEntries(Object.values(sets).map((v, i) => [`:v${i}`, v]));
  return conditionalTransaction({
    decide: async () => {
      const c = await getCampaign(tenantId, campaignId);
      if (!c) return noChange(undefined);
      if (!(CAMPAIGN_MOVES[action] as readonly string[]).includes(c.status)) throw new CampaignStatusConflict(c.status);
      return commit(
        [
          {
            Update: {
              TableName: tableName(),
              Key: campaignKeys.campaign(tenantId, campaignId),
              UpdateExpression: `SET ${Object.keys(sets)
                .map((_, i) => `#f${i} = :v${i}`)
                .join(', ')}`,
              ConditionExpression: '#f_status = :from',
              ExpressionAttributeNames: { ...names, '#f_status': 'status' },
              ExpressionAttributeValues: { ...values, ':from': c.status },
            },
          },
          ...campaignEvent(c, to, c.status, at),
          ...shardStatusItems(c, to),
          ...(opts.extra?.(c) ?? []),
        ],
        { ...c, ...sets } as CampaignRecord,
      );
    },
    // Any refusal may be a move that got there first: the next read decides (conflict or retry).
    raced: (err) => err instanceof TransactionCanceledException,
    exhausted: () => new Error(`campaign ${campaignId}: the status kept changing`),
  });
}

/** Put the campaign with its idempotency result (if any) in one transaction. */
export async function writeNewCampaign(c: CampaignRecord, extra: TransactItem[]): Promise<void> {
  if (extra.length === 0) {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...campaignKeys.campaign(c.tenant_id, c.id), type: 'campaign', ...c },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return;
  }
  await db().send(new TransactWriteCommand({ TransactItems: [campaignPut(c), ...extra] }));
}

/* The campaign's share of a dial and of a held slot's release (the attempt's end: shared/repositories/campaign-attempt-items.ts). */

/** scheduled → dialing of a campaign call: `dialed` + 1, only while the campaign runs (the dispatcher's check of the campaign). */
export function campaignDialItems(
  call: { tenant_id: string; campaign_id?: string | null; contact_id?: string | null; campaign_shard?: number | null },
  at: Date,
): TransactItem[] {
  if (!call.campaign_id || !call.contact_id) return [];
  const iso = at.toISOString();
  return [
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.counterOf(call.tenant_id, call.campaign_id, call.campaign_shard),
        UpdateExpression: 'ADD dialed :one SET updated_at = :at',
        ConditionExpression: '#status = :running',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':at': iso, ':running': 'running' },
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.row(call.tenant_id, call.campaign_id, call.contact_id),
        UpdateExpression: 'SET latest_attempt_state = :dialing, last_activity_at = :at',
        ExpressionAttributeValues: { ':dialing': 'dialing', ':at': iso },
      },
    },
  ];
}

/** A held campaign slot freed: the attempt ended earlier, its carrier leg has now ended too. */
export function campaignSlotReleaseItem(call: { tenant_id: string; campaign_id?: string | null; campaign_shard?: number | null }, at: Date): TransactItem[] {
  if (!call.campaign_id) return [];
  return [
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.counterOf(call.tenant_id, call.campaign_id, call.campaign_shard),
        UpdateExpression: 'ADD in_flight :minus SET updated_at = :at',
        ExpressionAttributeValues: { ':minus': -1, ':at': at.toISOString() },
      },
    },
  ];
}

/* The driver's lease and markers (shared/campaigns/driver.ts). */

/** Take the driver's lease until `until` if nobody holds a live one at `at` (wall-clock ISO instants). */
export async function takeDriverLease(tenantId: string, campaignId: string, until: string, at: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: campaignKeys.campaign(tenantId, campaignId),
        UpdateExpression: 'SET lease_until = :until',
        ConditionExpression: 'attribute_not_exists(lease_until) OR lease_until < :now OR attribute_type(lease_until, :null)',
        ExpressionAttributeValues: { ':until': until, ':now': at, ':null': 'NULL' },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

export async function dropDriverLease(tenantId: string, campaignId: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: campaignKeys.campaign(tenantId, campaignId),
      UpdateExpression: 'SET lease_until = :null',
      ExpressionAttributeValues: { ':null': null },
    }),
  );
}

export async function dropActiveMarker(tenantId: string, campaignId: string): Promise<void> {
  await db().send(new DeleteCommand(activeMarkerDelete(tenantId, campaignId).Delete!));
}

/** Every campaign the scheduler tick drives. */
export async function activeCampaignMarkers(): Promise<{ tenant_id: string; campaign_id: string }[]> {
  const out = await db().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': campaignKeys.activePartition } }),
  );
  return (out.Items ?? []).map((m) => ({ tenant_id: m.tenant_id as string, campaign_id: m.campaign_id as string }));
}

/**
 * A launch takes a slot on shard `shard` (null: the campaign item, a campaign started before
 * shards): `in_flight` + 1, only while the campaign runs and under the shard's share of the cap —
 * the shares sum to the cap, so it is exact across every launcher.
 */
export function launchSlotItem(c: Pick<CampaignRecord, 'tenant_id' | 'id' | 'concurrency_cap' | 'shards'>, shard: number | null): TransactItem {
  const cap = shard === null ? (c.concurrency_cap ?? null) : (c.shards?.find((s) => s.shard === shard)?.cap ?? null);
  const capped = cap !== null;
  return {
    Update: {
      TableName: tableName(),
      Key: campaignKeys.counterOf(c.tenant_id, c.id, shard),
      UpdateExpression: 'ADD in_flight :one',
      ConditionExpression: `#status = :running${capped ? ' AND in_flight < :cap' : ''}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':one': 1, ':running': 'running', ...(capped ? { ':cap': cap } : {}) },
    },
  };
}

/** A contact of a cancelled campaign disposed before its attempt: `done` + 1. */
export function campaignDoneItem(tenantId: string, campaignId: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: campaignKeys.campaign(tenantId, campaignId),
      UpdateExpression: 'ADD done :one',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

/** The scrub's writes hold only while its status allows them (a cancel closes it); the condition's names and values. */
const scrubOpenCondition = {
  expression: `#status IN (${SCRUB_OPEN_STATUSES.map((_, i) => `:open${i}`).join(', ')})`,
  values: Object.fromEntries(SCRUB_OPEN_STATUSES.map((s, i) => [`:open${i}`, s])),
};

/** One scrubbed contact counted: contacts_total and the scrub's counts by outcome, reason and (blocked) disposition; a blocked one is `done` at once. Only while the scrub is open. */
export function scrubCountItem(
  c: Pick<CampaignRecord, 'tenant_id' | 'id'>,
  counted: { outcome: 'allowed' | 'deferred' | 'blocked'; reason: string; disposition: string | null },
): TransactItem {
  const blocked = counted.outcome === 'blocked';
  return {
    Update: {
      TableName: tableName(),
      Key: campaignKeys.campaign(c.tenant_id, c.id),
      UpdateExpression:
        'ADD contacts_total :one, done :done SET scrub.#o = scrub.#o + :one, scrub.by_reason.#r = if_not_exists(scrub.by_reason.#r, :zero) + :one' +
        (blocked ? ', scrub.by_disposition.#d = if_not_exists(scrub.by_disposition.#d, :zero) + :one' : ''),
      ConditionExpression: scrubOpenCondition.expression,
      ExpressionAttributeNames: {
        '#o': counted.outcome,
        '#r': counted.reason,
        '#status': 'status',
        ...(blocked ? { '#d': counted.disposition as string } : {}),
      },
      ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':done': blocked ? 1 : 0, ...scrubOpenCondition.values },
    },
  };
}

/**
 * Where the scrub resumes (null: from the start) and whether the list is exhausted; only while
 * the scrub is open. False when it is closed (the campaign was cancelled meanwhile).
 */
export async function saveScrubCursor(
  c: Pick<CampaignRecord, 'tenant_id' | 'id'>,
  cursor: Record<string, unknown> | null,
  complete: boolean,
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: campaignKeys.campaign(c.tenant_id, c.id),
        UpdateExpression: 'SET scrub_cursor = :cursor, scrub_complete = :done',
        ConditionExpression: scrubOpenCondition.expression,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':cursor': cursor, ':done': complete, ...scrubOpenCondition.values },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
