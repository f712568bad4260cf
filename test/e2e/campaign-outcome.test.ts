/**
 * A campaign's structured outcome (see docs/decisions/campaigns.md): a staffing agent (tpl_staffing_shift_confirmation:
 * confirm_shift, outcome_type shift_confirmation) over the sandbox number that answers and
 * reaches the goal. The runtime's `outcome` event (outcome_type shift_confirmation, response,
 * optional shift_id) becomes the row's `outcome` through rowOutcome (shared/repositories/campaign-attempt-items.ts), the
 * one place its field names are mapped (shift_id → shift_ref).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { type CallWorld, callWorld, resetClock, setClock, storedCall } from './call-fixtures.js';
import { allRows, futureAllowedAt, importList, newCampaign, poolOf, waitForStatus } from './campaign-fixtures.js';
import { client, newTenant } from './client.js';

process.env.SANDBOX_STEP_MS = '150';
process.env.ANALYSIS_DELAY_SECONDS = '1';

const stack = useTestStack({ workers: true, schedulerTickMs: 200 });
afterEach(() => resetClock());

let w: CallWorld;
beforeAll(async () => {
  const t = await newTenant('Campaign outcome');
  w = await callWorld(client(stack, t.token), t.tenantId, { template: 'tpl_staffing_shift_confirmation' });
});

const GOAL = '+12125550100';
const NO_GOAL = '+12125550110';
const NO_ANSWER = '+12125550121';

describe('a shift confirmation campaign', () => {
  it('shows the confirmed (and the declined) shift as the row outcome, and has_outcome filters them', async () => {
    setClock(futureAllowedAt());
    const listId = await importList(w.api, [GOAL, NO_GOAL, NO_ANSWER]);
    const pool = await poolOf(w, 0);
    const c = await newCampaign(w, listId, pool.id, { concurrency_cap: 2, max_attempts_per_contact: 1 });
    expect((await w.api('POST', `/v1/campaigns/${c.id}/start`)).status).toBe(200);
    await waitForStatus(w.api, c.id, 'completed', 90_000);

    const row = await waitFor(
      async () => {
        const r = (await allRows(w.api, c.id)).find((x) => x.contact_phone === GOAL);
        return r?.outcome ? r : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, message: 'the outcome on the row' },
    );
    const call = await storedCall(w.tenantId, row.call_id);
    const event = (call as unknown as { outcome: unknown }).outcome as { event_id: string; outcome_type: string; response: string };
    expect(event).toMatchObject({ outcome_type: 'shift_confirmation', response: 'confirmed' });
    expect(row).toMatchObject({ disposition: 'completed_goal', latest_attempt_state: 'completed' });
    // The sandbox runtime reports no shift id, site or start: those are null (the contract's fields, mapped in rowOutcome).
    expect(row.outcome).toEqual({ kind: 'shift_confirmation', id: event.event_id, response: 'confirmed', shift_ref: null, site: null, shift_starts_at: null });
    expect(row.outcome.id).toMatch(/\S/);

    // The worker who declined has a shift_confirmation outcome too; the unanswered one has none.
    const rows = await allRows(w.api, c.id);
    expect(rows.find((r) => r.contact_phone === NO_GOAL)).toMatchObject({
      disposition: 'completed_no_goal',
      outcome: { kind: 'shift_confirmation', response: 'declined', shift_ref: null },
    });
    expect(rows.find((r) => r.contact_phone === NO_ANSWER)).toMatchObject({ disposition: 'no_answer', outcome: null });
    expect((await allRows(w.api, c.id, '&has_outcome=true')).map((r) => r.contact_phone).sort()).toEqual([GOAL, NO_GOAL]);
    expect((await allRows(w.api, c.id, '&has_outcome=false')).map((r) => r.contact_phone)).toEqual([NO_ANSWER]);
    expect((await allRows(w.api, c.id, '&has_outcome=true&disposition=completed_goal')).map((r) => r.contact_phone)).toEqual([GOAL]);
  }, 150_000);
});
