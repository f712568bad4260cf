/**
 * A campaign's counters on shards (docs/capacity.md), on DynamoDB Local: launches spread over
 * the shard keys under each shard's share of the cap, concurrent launchers never pass the cap,
 * dials and ends count on the attempt's shard, getCampaign reads back the sums, and a status
 * move reaches every shard in its own transaction.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { campaignKeys } from '../../shared/db/keys.js';
import { failedConditionIndex, transactWrite } from '../../shared/db/transact-write.js';
import { newId } from '../../shared/ids.js';
import { campaignEndItems } from '../../shared/repositories/campaign-attempt-items.js';
import {
  type CampaignRecord,
  campaignDialItems,
  counterShardPuts,
  getCampaign,
  launchSlotItem,
  moveCampaign,
  newCampaign,
  writeNewCampaign,
} from '../../shared/repositories/campaigns.js';
import { useTestEnvironment } from '../support/environment.js';

const env = useTestEnvironment({ queues: false, bucket: false });
const at = new Date('2026-11-18T15:00:00.000Z');

async function runningCampaign(cap: number | null): Promise<CampaignRecord> {
  const tenantId = newId('ten');
  const c = newCampaign(
    tenantId,
    {
      name: 'Shards',
      agent_definition_id: newId('agt'),
      target: { contact_list_id: newId('lst') },
      number_pool_id: newId('npl'),
      telephony_account_id: newId('tac'),
      compliance_profile_id: null,
      max_attempts_per_contact: 1,
      concurrency_cap: cap,
      retry_after_minutes: 60,
    },
    at,
  );
  const shards = counterShardPuts(c, 'running');
  await writeNewCampaign({ ...c, status: 'running', counter_shards: shards.shards, contacts_total: 8 }, shards.items);
  return (await getCampaign(tenantId, c.id))!;
}

/** One launcher's slot: its planned shard first, then the others; a conflict with another transaction is tried again. */
async function takeSlot(c: CampaignRecord, first: number): Promise<number | null> {
  const order = c.shards!.map((s) => s.shard).sort((a, b) => ((a - first + 100) % c.shards!.length) - ((b - first + 100) % c.shards!.length));
  for (const shard of order) {
    for (;;) {
      try {
        await transactWrite([launchSlotItem(c, shard)]);
        return shard;
      } catch (err) {
        if (failedConditionIndex(err) === 0) break; // full (or not running): the next shard
        if ((err as { name?: string }).name !== 'TransactionCanceledException') throw err;
      }
    }
  }
  return null;
}

const shardItem = async (c: CampaignRecord, i: number) =>
  (await db().send(new GetCommand({ TableName: env.tableName, Key: campaignKeys.counters(c.tenant_id, c.id, i), ConsistentRead: true }))).Item!;

describe('campaign counter shards on DynamoDB Local', () => {
  it('spreads 120 concurrent launches over 4 shard keys and lets exactly the cap (110 → 28+28+27+27) through; the reads sum them', async () => {
    const c = await runningCampaign(110);
    expect(c.counter_shards).toBe(4);
    expect(c.shards!.map((s) => s.cap)).toEqual([28, 28, 27, 27]);
    // 120 launchers at once, each planned on a shard in turn: only 110 slots exist.
    const taken = await Promise.all(Array.from({ length: 120 }, (_, k) => takeSlot(c, k % 4)));
    expect(taken.filter((s) => s !== null)).toHaveLength(110);
    const items = await Promise.all([0, 1, 2, 3].map((i) => shardItem(c, i)));
    expect(items.map((s) => s.in_flight)).toEqual([28, 28, 27, 27]);
    // The campaign item itself took none of these writes; the read is their sum.
    const campaignItem = (await db().send(new GetCommand({ TableName: env.tableName, Key: campaignKeys.campaign(c.tenant_id, c.id), ConsistentRead: true })))
      .Item!;
    expect(campaignItem.in_flight).toBe(0);
    expect((await getCampaign(c.tenant_id, c.id))!.in_flight).toBe(110);
  });

  it("counts each attempt's dial and end on its own shard; the reads add the item's own done", async () => {
    const c = await runningCampaign(100);
    const calls = Array.from({ length: 8 }, (_, k) => ({
      tenant_id: c.tenant_id,
      id: newId('cal'),
      campaign_id: c.id,
      contact_id: newId('con'),
      campaign_shard: k % 4,
      campaign_attempt: { number: 1, max_attempts: 1, retry_after_minutes: 60 },
    }));
    for (const call of calls) {
      await transactWrite([launchSlotItem(c, call.campaign_shard)]);
      await transactWrite(campaignDialItems(call, at));
    }
    for (const [k, call] of calls.entries())
      await transactWrite(campaignEndItems(call, { state: 'completed', disposition: k < 3 ? 'completed_goal' : 'completed_no_goal', end_reason: null }, at));
    const items = await Promise.all([0, 1, 2, 3].map((i) => shardItem(c, i)));
    expect(items.map((s) => [s.in_flight, s.dialed, s.done])).toEqual([
      [0, 2, 2],
      [0, 2, 2],
      [0, 2, 2],
      [0, 2, 2],
    ]);
    const read = (await getCampaign(c.tenant_id, c.id))!;
    expect(read).toMatchObject({ in_flight: 0, dialed: 8, connected: 8, completed_goal: 3, done: 8 });
  });

  it('a status move reaches every shard with it: a paused campaign launches on none, a resumed one again', async () => {
    const c = await runningCampaign(50);
    await moveCampaign(c.tenant_id, c.id, 'pause', 'paused', at);
    expect((await Promise.all([0, 1].map((i) => shardItem(c, i)))).map((s) => s.status)).toEqual(['paused', 'paused']);
    expect(await takeSlot(c, 0)).toBeNull();
    await moveCampaign(c.tenant_id, c.id, 'resume', 'running', at);
    expect(await takeSlot(c, 1)).toBe(1);
  });
});
