/**
 * The campaign status actions (shared/campaigns/actions.ts) over the campaigns, agents and
 * number-pools stores: reads from the in-memory table, the status move's transaction (an
 * Update, so scripted) applied to it by hand, or cancelled as DynamoDB would.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { cancelCampaign, pauseCampaign, resumeCampaign, startCampaign } from '../../../shared/campaigns/actions.js';
import { agentKeys, campaignKeys } from '../../../shared/db/keys.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const C = 'cmp_01JAAAAAAAAAAAAAAAAAAAAAAA';
const AGENT = 'agt_01JAAAAAAAAAAAAAAAAAAAAAAA';
const POOL = 'npl_01JAAAAAAAAAAAAAAAAAAAAAAA';
const NUMBERS = ['pnb_01JAAAAAAAAAAAAAAAAAAAAAA1', 'pnb_01JAAAAAAAAAAAAAAAAAAAAAA2'];

function campaign(status: string) {
  table.put({
    ...campaignKeys.campaign(T, C),
    type: 'campaign',
    id: C,
    tenant_id: T,
    status,
    agent_definition_id: AGENT,
    number_pool_id: POOL,
    updated_at: 'x',
  });
}
const agentVersion = () =>
  table.put({ ...agentKeys.version(T, AGENT, 3), id: 'agv_01JAAAAAAAAAAAAAAAAAAAAAA3', version: 3, compliance_profile: { subject: 'sales' } });
const pool = () => table.put({ ...campaignKeys.pool(T, POOL), id: POOL, name: 'p', phone_number_ids: NUMBERS, created_at: 'x', updated_at: 'x' });

/** Apply the move's Update (the campaign's SET of :v values) and its Puts, as DynamoDB would when the condition holds. */
function applyTransactions() {
  ddb.on(TransactWriteCommand).callsFake(async (input) => {
    // biome-ignore lint/suspicious/noExplicitAny: the transaction's item shapes
    for (const t of input.TransactItems as any[]) {
      if (t.Put) table.put(t.Put.Item);
      if (t.Update) {
        const current = table.get(t.Update.Key)!;
        if (current.status !== t.Update.ExpressionAttributeValues[':from']) throw transactionCancelled(['ConditionalCheckFailed']);
        const names = t.Update.ExpressionAttributeNames as Record<string, string>;
        const values = t.Update.ExpressionAttributeValues as Record<string, unknown>;
        const sets = Object.fromEntries(
          Object.keys(names)
            .filter((n) => n !== '#f_status')
            .map((n) => [names[n]!, values[`:v${n.slice(2)}`]]),
        );
        table.put({ ...current, ...sets } as never);
      }
    }
    return {};
  });
}

beforeEach(() => {
  table.reset();
  applyTransactions();
});

const moves = () => inputsOf(TransactWriteCommand);

describe('startCampaign', () => {
  it('draft → scrubbing, conditioned on draft: pins the latest version and the pool’s numbers, opens a scrub run, marks the campaign active', async () => {
    campaign('draft');
    agentVersion();
    pool();
    const started = await startCampaign(T, C);
    expect(started).toMatchObject({ status: 'scrubbing', agent_version_id: 'agv_01JAAAAAAAAAAAAAAAAAAAAAA3', subject: 'sales', pool_number_ids: NUMBERS });
    expect(started!.scrub_run_id).toMatch(/^scr_/);
    const [tx] = moves();
    const update = tx!.TransactItems[0].Update;
    expect(update.ConditionExpression).toBe('#f_status = :from');
    expect(update.ExpressionAttributeValues[':from']).toBe('draft');
    expect(table.get(campaignKeys.active(T, C))).toMatchObject({ type: 'campaign_active', campaign_id: C });
    expect(table.get(campaignKeys.campaign(T, C))).toMatchObject({ status: 'scrubbing', scrub_complete: false, scrub_cursor: null });
  });

  it('refuses before any write: not a draft (409 naming the status), no published version, a pool gone; an unknown campaign is undefined', async () => {
    expect(await startCampaign(T, C)).toBeUndefined();
    campaign('running');
    await expect(startCampaign(T, C)).rejects.toMatchObject({ code: 'campaign_status_conflict', kind: 'conflict', extra: { status: 'running' } });
    campaign('draft');
    pool();
    await expect(startCampaign(T, C)).rejects.toMatchObject({ code: 'agent_not_published' });
    agentVersion();
    table.remove(campaignKeys.pool(T, POOL));
    await expect(startCampaign(T, C)).rejects.toMatchObject({ code: 'number_pool_gone' });
    expect(moves()).toHaveLength(0);
  });
});

describe('pause, resume, cancel', () => {
  it('pause moves running → paused with no marker; resume paused → running and marks it active again', async () => {
    campaign('running');
    expect(await pauseCampaign(T, C)).toMatchObject({ status: 'paused' });
    expect(moves()[0]!.TransactItems.some((t: { Put?: unknown }) => t.Put && JSON.stringify(t.Put).includes('campaign_active'))).toBe(false);
    expect(await resumeCampaign(T, C)).toMatchObject({ status: 'running' });
    expect(table.get(campaignKeys.active(T, C))).toBeDefined();
  });

  it('a move the status does not allow is a 409 naming the status, with nothing written', async () => {
    campaign('paused');
    await expect(pauseCampaign(T, C)).rejects.toMatchObject({ code: 'campaign_status_conflict', kind: 'conflict', extra: { status: 'paused' } });
    campaign('cancelled');
    await expect(cancelCampaign(T, C)).rejects.toMatchObject({ code: 'campaign_status_conflict', kind: 'conflict', extra: { status: 'cancelled' } });
    expect(moves()).toHaveLength(0);
  });

  it('cancel of a draft leaves no active marker (the driver never knew it); of a running one marks it for the sweep', async () => {
    campaign('draft');
    expect(await cancelCampaign(T, C)).toMatchObject({ status: 'cancelled' });
    expect(table.get(campaignKeys.active(T, C))).toBeUndefined();
    campaign('running');
    expect(await cancelCampaign(T, C)).toMatchObject({ status: 'cancelled' });
    expect(table.get(campaignKeys.active(T, C))).toBeDefined();
  });

  it('a move that loses the race reads again and judges the status it finds (paused meanwhile: pause is a conflict)', async () => {
    campaign('running');
    let first = true;
    ddb.on(TransactWriteCommand).callsFake(async () => {
      if (first) {
        first = false;
        campaign('paused'); // another writer paused it between our read and our write
        throw transactionCancelled(['ConditionalCheckFailed']);
      }
      return {};
    });
    await expect(pauseCampaign(T, C)).rejects.toMatchObject({ code: 'campaign_status_conflict', kind: 'conflict', extra: { status: 'paused' } });
    expect(moves()).toHaveLength(1);
  });
});
