/**
 * A freed concurrency slot is refilled at once (see docs/decisions/campaigns.md): the terminal transition of a
 * running campaign's attempt sends a `campaign.launch` message, and the dispatch worker runs
 * the campaign's launch step. The scheduler here ticks every 10 minutes (never, within the
 * test), so only the first launch comes from a tick (run by the test itself): without the
 * nudge, one attempt would be dialled and the campaign would wait for the next tick.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCampaigns } from '../../shared/campaigns/driver.js';
import { useTestStack } from '../support/stack.js';
import { type CallWorld, callWorld, resetClock, setClock } from './call-fixtures.js';
import { allRows, carrierCalls, futureAllowedAt, importList, newCampaign, peaks, poolOf, waitForStatus } from './campaign-fixtures.js';
import { client, newTenant } from './client.js';
import { randomNumber } from './telephony-fixtures.js';

process.env.SANDBOX_STEP_MS = '150';
process.env.ANALYSIS_DELAY_SECONDS = '1';

const stack = useTestStack({ workers: true, schedulerTickMs: 600_000 });
afterEach(() => resetClock());

let w: CallWorld;
beforeAll(async () => {
  const t = await newTenant('Campaign nudge');
  w = await callWorld(client(stack, t.token), t.tenantId);
});

describe('an attempt that ends refills its slot without waiting for the tick', () => {
  it('dials a concurrency_cap 1 campaign of four contacts to completion after a single tick', async () => {
    setClock(futureAllowedAt());
    const phones = Array.from({ length: 4 }, () => randomNumber('212'));
    const listId = await importList(w.api, phones);
    const pool = await poolOf(w, 0);
    const c = await newCampaign(w, listId, pool.id, { concurrency_cap: 1 });
    expect((await w.api('POST', `/v1/campaigns/${c.id}/start`)).status).toBe(200);
    const ticks = stack.schedulerTicks();
    await runCampaigns(); // the one tick: scrub, running, the first launch

    const done = await waitForStatus(w.api, c.id, 'completed', 60_000);
    expect(stack.schedulerTicks()).toBe(ticks); // no scheduler tick helped
    expect(done).toMatchObject({ contacts_total: 4, dialed: 4 });
    const calls = (await carrierCalls(pool.numbers)).filter((x) => phones.includes(x.to));
    expect(calls).toHaveLength(4);
    expect(peaks(calls).inFlight).toBeLessThanOrEqual(1);
    expect((await allRows(w.api, c.id)).every((r) => r.latest_attempt_state === 'completed')).toBe(true);
  }, 120_000);
});
