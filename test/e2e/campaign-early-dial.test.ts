/**
 * A campaign dials its first judged page while the rest of its list is still scrubbed (see
 * docs/decisions/campaigns.md, "Dialling while the scrub goes on"). The scheduler here ticks
 * every 10 minutes (never, within the test); the test runs the driver itself, the first tick with
 * no scrub budget past the first page, so the list's second page is held back until the test
 * lets it be judged. Every dialled contact has its judged row; the campaign completes only once
 * the whole list is judged; the caps hold on the carrier's records; a cancel closes the scrub.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { driveCampaign } from '../../shared/campaigns/driver.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { type CallWorld, callWorld, resetClock, setClock, setCpsLimit } from './call-fixtures.js';
import { allRows, campaignOf, carrierCalls, futureAllowedAt, importList, newCampaign, peaks, poolOf, waitForStatus } from './campaign-fixtures.js';
import { client, newTenant } from './client.js';
import { randomNumber } from './telephony-fixtures.js';

process.env.SANDBOX_STEP_MS = '150';
process.env.ANALYSIS_DELAY_SECONDS = '1';

const stack = useTestStack({ workers: true, schedulerTickMs: 600_000 });
afterEach(() => resetClock());

/** The scrub's page (shared/campaigns/scrub.ts): a list one page and a few contacts long. */
const PAGE = 50;
const CPS = 10;
/** An attempt's states before its end. */
const LIVE = ['scrubbed', 'pending', 'scheduled', 'dialing', 'answered', 'in_conversation'];

let w: CallWorld;
let tenantId: string;
beforeAll(async () => {
  const t = await newTenant('Campaign early dial');
  tenantId = t.tenantId;
  w = await callWorld(client(stack, t.token), t.tenantId);
  await setCpsLimit(t.tenantId, w.accountId, CPS);
});

describe('a campaign dials its first judged page while the rest of the list is scrubbed', () => {
  it('runs after one page, dials only judged contacts, and completes only once the whole list is judged', async () => {
    setClock(futureAllowedAt());
    const phones = Array.from({ length: PAGE + 4 }, () => randomNumber('212'));
    const listId = await importList(w.api, phones);
    const pool = await poolOf(w, 1);
    const cap = PAGE; // the whole first page at once: the test waits for one call's length, not seven
    const c = await newCampaign(w, listId, pool.id, { concurrency_cap: cap });
    expect((await w.api('POST', `/v1/campaigns/${c.id}/start`)).status).toBe(200);

    await driveCampaign(tenantId, c.id, { scrubBudgetMs: 0 }); // the first page only
    const first = await campaignOf(w.api, c.id);
    expect(first).toMatchObject({ status: 'running', contacts_total: PAGE });

    // The first page's contacts dial and end; the held-back page has no row, so nothing of it is dialled.
    await waitFor(
      async () => {
        const rows = await allRows(w.api, c.id);
        return rows.length === PAGE && rows.every((r) => !LIVE.includes(r.latest_attempt_state));
      },
      { timeoutMs: 240_000, intervalMs: 1000, message: 'the first page dialled to its end' },
    );
    const between = await campaignOf(w.api, c.id);
    // Every judged contact is done, but the list is not: still running, never completed early.
    expect(between).toMatchObject({ status: 'running', contacts_total: PAGE, dialed: PAGE });
    const judged = new Set((await allRows(w.api, c.id)).map((r) => r.contact_phone));
    const dialledEarly = (await carrierCalls(pool.numbers)).filter((x) => phones.includes(x.to));
    expect(dialledEarly).toHaveLength(PAGE);
    expect(dialledEarly.every((x) => judged.has(x.to))).toBe(true);

    await driveCampaign(tenantId, c.id); // the rest of the list, and its launches
    const done = await waitForStatus(w.api, c.id, 'completed', 240_000);
    expect(done).toMatchObject({ contacts_total: PAGE + 4, dialed: PAGE + 4 });
    const calls = (await carrierCalls(pool.numbers)).filter((x) => phones.includes(x.to));
    expect(calls).toHaveLength(PAGE + 4);
    const { inFlight, perSecond } = peaks(calls);
    expect(inFlight).toBeLessThanOrEqual(cap);
    expect(perSecond).toBeLessThanOrEqual(CPS);
  }, 600_000);

  it('a cancel while the scrub is open closes it: no further page is judged', async () => {
    setClock(futureAllowedAt());
    const phones = Array.from({ length: PAGE + 4 }, () => randomNumber('212'));
    const listId = await importList(w.api, phones);
    const pool = await poolOf(w, 0);
    const c = await newCampaign(w, listId, pool.id, { concurrency_cap: 1 });
    expect((await w.api('POST', `/v1/campaigns/${c.id}/start`)).status).toBe(200);
    await driveCampaign(tenantId, c.id, { scrubBudgetMs: 0 });
    expect(await campaignOf(w.api, c.id)).toMatchObject({ status: 'running', contacts_total: PAGE });

    expect((await w.api('POST', `/v1/campaigns/${c.id}/cancel`)).body.status).toBe('cancelled');
    await driveCampaign(tenantId, c.id); // the sweep; the scrub stays closed
    const after = await campaignOf(w.api, c.id);
    expect(after).toMatchObject({ status: 'cancelled', contacts_total: PAGE });
    const rows = await allRows(w.api, c.id);
    expect(rows).toHaveLength(PAGE);
  }, 120_000);
});
