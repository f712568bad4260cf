/** The campaigns store's driver lease, markers and the launch/scrub items (aws-sdk-client-mock): what each sends, and the exact conditions. */
import { BatchGetCommand, DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { tableName } from '../../../shared/db/client.js';
import { campaignKeys } from '../../../shared/db/keys.js';
import {
  activeCampaignMarkers,
  campaignDialItems,
  campaignDoneItem,
  campaignSlotReleaseItem,
  counterShardPuts,
  dropActiveMarker,
  dropDriverLease,
  getCampaign,
  launchSlotItem,
  saveScrubCursor,
  scrubCountItem,
  takeDriverLease,
} from '../../../shared/repositories/campaigns.js';
import { conditionFailed, ddb } from '../../support/document-client-mock.js';

const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const C = 'cmp_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-11-18T15:00:00.000Z');

beforeEach(() => ddb.reset());

describe('the driver lease', () => {
  it('is taken only when absent, null or expired, and refused (false) otherwise', async () => {
    ddb.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    expect(await takeDriverLease(T, C, '2026-11-18T15:00:45.000Z', '2026-11-18T15:00:00.000Z')).toBe(true);
    expect(await takeDriverLease(T, C, '2026-11-18T15:00:45.000Z', '2026-11-18T15:00:00.000Z')).toBe(false);
    const sent = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(sent.Key).toEqual(campaignKeys.campaign(T, C));
    expect(sent.ConditionExpression).toBe('attribute_not_exists(lease_until) OR lease_until < :now OR attribute_type(lease_until, :null)');
    expect(sent.ExpressionAttributeValues).toMatchObject({ ':until': '2026-11-18T15:00:45.000Z', ':now': '2026-11-18T15:00:00.000Z' });
  });
  it('is dropped to null, and the marker deleted by its key', async () => {
    ddb.on(UpdateCommand).resolves({});
    ddb.on(DeleteCommand).resolves({});
    await dropDriverLease(T, C);
    await dropActiveMarker(T, C);
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues).toEqual({ ':null': null });
    expect(ddb.commandCalls(DeleteCommand)[0]!.args[0].input.Key).toEqual(campaignKeys.active(T, C));
  });
  it('lists the marked campaigns', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ pk: 'PLATFORM#CAMPAIGNS', sk: `${T}#${C}`, tenant_id: T, campaign_id: C }] });
    expect(await activeCampaignMarkers()).toEqual([{ tenant_id: T, campaign_id: C }]);
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input.ExpressionAttributeValues).toEqual({ ':pk': campaignKeys.activePartition });
  });
});

describe('the counters an attempt moves', () => {
  it('a launch: in_flight + 1 on its shard, only while running and under its share of the cap; no cap, no cap condition', () => {
    const shards = [
      { shard: 0, in_flight: 0, cap: 25 },
      { shard: 1, in_flight: 0, cap: 25 },
    ];
    const capped = launchSlotItem({ tenant_id: T, id: C, concurrency_cap: 50, shards }, 1).Update!;
    expect(capped.Key).toEqual(campaignKeys.counters(T, C, 1));
    expect(capped.ConditionExpression).toBe('#status = :running AND in_flight < :cap');
    expect(capped.ExpressionAttributeValues).toEqual({ ':one': 1, ':running': 'running', ':cap': 25 });
    const open = launchSlotItem({ tenant_id: T, id: C, concurrency_cap: null, shards: [{ shard: 0, in_flight: 0, cap: null }] }, 0).Update!;
    expect(open.ConditionExpression).toBe('#status = :running');
    expect(open.ExpressionAttributeValues).not.toHaveProperty(':cap');
    // A campaign started before shards: its item, under the whole cap.
    const legacy = launchSlotItem({ tenant_id: T, id: C, concurrency_cap: 50 }, null).Update!;
    expect(legacy.Key).toEqual(campaignKeys.campaign(T, C));
    expect(legacy.ExpressionAttributeValues).toMatchObject({ ':cap': 50 });
  });
  it('the shards a campaign starts with: one per 25 slots of its cap (at most 8), shares summing to the cap, each with the status', () => {
    const { shards, items } = counterShardPuts({ tenant_id: T, id: C, concurrency_cap: 110 }, 'scrubbing');
    expect(shards).toBe(4);
    expect(items.map((i) => i.Put!.Item!.cap)).toEqual([28, 28, 27, 27]);
    expect(items.map((i) => i.Put!.Item!.pk)).toEqual([0, 1, 2, 3].map((i) => campaignKeys.counters(T, C, i).pk));
    expect(new Set(items.map((i) => i.Put!.Item!.pk)).size).toBe(4);
    expect(items.every((i) => i.Put!.Item!.status === 'scrubbing' && i.Put!.Item!.in_flight === 0)).toBe(true);
    expect(counterShardPuts({ tenant_id: T, id: C, concurrency_cap: null }, 'scrubbing').shards).toBe(8);
    expect(counterShardPuts({ tenant_id: T, id: C, concurrency_cap: 3 }, 'scrubbing').shards).toBe(1);
  });
  it('reads the item and every shard in one BatchGetItem and answers their sums', async () => {
    ddb.on(BatchGetCommand).resolves({
      Responses: {
        [tableName()]: [
          { ...campaignKeys.campaign(T, C), id: C, status: 'running', done: 2, counter_shards: 2 },
          { ...campaignKeys.counters(T, C, 0), shard: 0, cap: 25, in_flight: 3, dialed: 10, connected: 4, completed_goal: 1, done: 5 },
          { ...campaignKeys.counters(T, C, 1), shard: 1, cap: 25, in_flight: 4, dialed: 11, connected: 5, completed_goal: 2, done: 6 },
        ],
      },
    });
    const c = (await getCampaign(T, C))!;
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(1);
    expect({ in_flight: c.in_flight, dialed: c.dialed, connected: c.connected, completed_goal: c.completed_goal, done: c.done }).toEqual({
      in_flight: 7,
      dialed: 21,
      connected: 9,
      completed_goal: 3,
      done: 13,
    });
    expect(c.shards).toEqual([
      { shard: 0, in_flight: 3, cap: 25 },
      { shard: 1, in_flight: 4, cap: 25 },
    ]);
  });
  it('a dial: dialed + 1 while running, and the row dialing; nothing for a call outside a campaign', () => {
    const [counter, row] = campaignDialItems({ tenant_id: T, campaign_id: C, contact_id: 'con_01JAAAAAAAAAAAAAAAAAAAAAAA', campaign_shard: 3 }, at);
    expect(counter!.Update!.Key).toEqual(campaignKeys.counters(T, C, 3));
    expect(counter!.Update!.UpdateExpression).toBe('ADD dialed :one SET updated_at = :at');
    expect(counter!.Update!.ConditionExpression).toBe('#status = :running');
    expect(row!.Update!.Key).toEqual(campaignKeys.row(T, C, 'con_01JAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(campaignDialItems({ tenant_id: T, campaign_id: null, contact_id: 'con_01JAAAAAAAAAAAAAAAAAAAAAAA' }, at)).toEqual([]);
  });
  it('a held slot released: in_flight − 1; a cancelled contact: done + 1', () => {
    expect(campaignSlotReleaseItem({ tenant_id: T, campaign_id: C }, at)[0]!.Update!.ExpressionAttributeValues).toMatchObject({ ':minus': -1 });
    expect(campaignSlotReleaseItem({ tenant_id: T }, at)).toEqual([]);
    expect(campaignDoneItem(T, C).Update!.UpdateExpression).toBe('ADD done :one');
  });
});

describe('the scrub', () => {
  it('counts a contact by outcome and reason, a blocked one by disposition and done, only while the scrub is open', () => {
    const blocked = scrubCountItem({ tenant_id: T, id: C }, { outcome: 'blocked', reason: 'internal_dnc', disposition: 'dnc_hit' }).Update!;
    expect(blocked.UpdateExpression).toContain('scrub.by_disposition.#d');
    expect(blocked.ExpressionAttributeNames).toMatchObject({ '#o': 'blocked', '#r': 'internal_dnc', '#d': 'dnc_hit' });
    expect(blocked.ExpressionAttributeValues).toMatchObject({ ':done': 1 });
    const allowed = scrubCountItem({ tenant_id: T, id: C }, { outcome: 'allowed', reason: 'none', disposition: null }).Update!;
    expect(allowed.UpdateExpression).not.toContain('by_disposition');
    expect(allowed.ExpressionAttributeValues).toMatchObject({ ':done': 0 });
    // The scrub goes on after the campaign runs (and while it is paused); a cancel closes it.
    const open = { ':open0': 'scrubbing', ':open1': 'ready', ':open2': 'running', ':open3': 'paused' };
    expect(allowed.ConditionExpression).toBe('#status IN (:open0, :open1, :open2, :open3)');
    expect(allowed.ExpressionAttributeValues).toMatchObject(open);
  });
  it('saves where it resumes, only while the scrub is open', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect(await saveScrubCursor({ tenant_id: T, id: C }, { pk: 'x', sk: 'y' }, false)).toBe(true);
    const sent = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(sent.ConditionExpression).toBe('#status IN (:open0, :open1, :open2, :open3)');
    expect(sent.ExpressionAttributeValues).toEqual({
      ':cursor': { pk: 'x', sk: 'y' },
      ':done': false,
      ':open0': 'scrubbing',
      ':open1': 'ready',
      ':open2': 'running',
      ':open3': 'paused',
    });
  });
  it('answers false when a cancel closed the scrub meanwhile', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await saveScrubCursor({ tenant_id: T, id: C }, null, true)).toBe(false);
  });
});
