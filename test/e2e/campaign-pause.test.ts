/**
 * Pause and resume of a campaign (see docs/decisions/campaigns.md) through the real path on the local stack: a
 * paused campaign's scheduled attempts are parked without events (no `call.scheduled` every
 * 30 s per attempt), nothing is dialled after the pause answers, calls in progress finish with
 * their real outcome, and resume dials the rest to completion. Time moves on the controllable
 * clock; every wait is a condition with a deadline.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { now } from '../../shared/clock.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { type CallWorld, callWorld, eventsOfCall, resetClock, setClock, setCpsLimit, storedCall } from './call-fixtures.js';
import { advance, allRows, campaignOf, carrierCalls, futureAllowedAt, importList, newCampaign, poolOf, waitForStatus } from './campaign-fixtures.js';
import { client, newTenant } from './client.js';
import { randomNumber } from './telephony-fixtures.js';

process.env.SANDBOX_STEP_MS = '150';
process.env.ANALYSIS_DELAY_SECONDS = '1';

const stack = useTestStack({ workers: true, schedulerTickMs: 200 });
afterEach(() => resetClock());

let w: CallWorld;
beforeAll(async () => {
  const t = await newTenant('Campaign pause');
  w = await callWorld(client(stack, t.token), t.tenantId);
});

const NO_ANSWER = '+12125550121';

/** Wait until the scheduler and the dispatcher have looked at the call again: its due item is armed within the next 31 s. */
const reExamined = (callId: string) =>
  waitFor(
    async () => {
      const call = await storedCall(w.tenantId, callId);
      const due = Date.parse(call.due_at ?? call.scheduled_for ?? '');
      const t = now().getTime();
      return call.state === 'scheduled' && due > t && due <= t + 31_000;
    },
    { timeoutMs: 30_000, intervalMs: 100, message: `call ${callId} re-examined` },
  );

describe('pause parks scheduled attempts without events', () => {
  it('emits no call.* event for a paused attempt however long the pause; resume dials it', async () => {
    setClock(futureAllowedAt()); // 10:00 in New York
    const listId = await importList(w.api, [NO_ANSWER]);
    const pool = await poolOf(w, 0);
    // The retry falls at 22:00 New York time: the dispatcher defers it to the next morning's window.
    const c = await newCampaign(w, listId, pool.id, { max_attempts_per_contact: 2, retry_after_minutes: 720, concurrency_cap: 1 });
    await w.api('POST', `/v1/campaigns/${c.id}/start`);
    await waitFor(async () => (await allRows(w.api, c.id))[0]?.latest_attempt_state === 'no_answer', {
      timeoutMs: 60_000,
      intervalMs: 200,
      message: 'first attempt unanswered',
    });

    advance(721 * 60_000);
    const retry = await waitFor(
      async () => {
        const row = (await allRows(w.api, c.id))[0];
        if (row?.attempts !== 2) return undefined;
        const call = await storedCall(w.tenantId, row.call_id);
        return call.state === 'scheduled' && Date.parse(call.scheduled_for!) > now().getTime() + 3_600_000 ? call : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: 'the retry launched and deferred to the morning' },
    );
    expect((await w.api('POST', `/v1/campaigns/${c.id}/pause`)).body.status).toBe('paused');
    const before = await eventsOfCall(w.tenantId, retry.id);

    // The morning comes, and five minutes more: the attempt is examined again and again, and stays quiet.
    setClock(Date.parse(retry.scheduled_for!) + 1_000);
    await reExamined(retry.id);
    for (let i = 0; i < 8; i++) {
      advance(40_000);
      await reExamined(retry.id);
    }
    const after = await eventsOfCall(w.tenantId, retry.id);
    expect(after.map((e) => e.type)).toEqual(before.map((e) => e.type));
    expect((await storedCall(w.tenantId, retry.id)).scheduled_for).toBe(retry.scheduled_for);
    expect((await carrierCalls(pool.numbers)).filter((x) => x.to === NO_ANSWER && x.created > Date.parse(retry.scheduled_for!))).toHaveLength(0);

    expect((await w.api('POST', `/v1/campaigns/${c.id}/resume`)).body.status).toBe('running');
    advance(31_000);
    const done = await waitForStatus(w.api, c.id, 'completed', 60_000);
    expect(done).toMatchObject({ dialed: 2, contacts_total: 1 });
    expect((await allRows(w.api, c.id))[0]).toMatchObject({ attempts: 2, latest_attempt_state: 'no_answer', disposition: 'no_answer' });
    expect((await eventsOfCall(w.tenantId, retry.id)).map((e) => e.type)).toContain('call.dialing');
  }, 180_000);
});

describe('pause and resume in a live run', () => {
  it('dials nothing after the pause answers; calls in progress finish with their real outcome; resume dials the rest to completion', async () => {
    setClock(futureAllowedAt());
    const phones = Array.from({ length: 8 }, () => randomNumber('212'));
    const listId = await importList(w.api, phones);
    const pool = await poolOf(w, 1);
    // Four launched at once, dialled one a second (the account's cps 1): the pause finds attempts still waiting to dial.
    await setCpsLimit(w.tenantId, w.accountId, 1);
    const c = await newCampaign(w, listId, pool.id, { concurrency_cap: 4 });
    await w.api('POST', `/v1/campaigns/${c.id}/start`);
    const ours = async () => (await carrierCalls(pool.numbers)).filter((x) => phones.includes(x.to));
    await waitFor(async () => (await ours()).length >= 1, { timeoutMs: 60_000, intervalMs: 50, message: 'a first dial' });

    const paused = await w.api('POST', `/v1/campaigns/${c.id}/pause`);
    const pausedAt = now().getTime(); // the platform clock, as the carrier's records use
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('paused');
    expect((await w.api('POST', `/v1/campaigns/${c.id}/pause`)).status).toBe(409);

    // The calls in progress end with their real outcome (the sandbox answers a random number).
    const dialled = await waitFor(
      async () => {
        const calls = await ours();
        const rows = await allRows(w.api, c.id);
        const ended = calls.every((x) => Number.isFinite(x.ended)) && calls.every((x) => rows.find((r) => r.contact_phone === x.to)?.disposition);
        return ended ? calls : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: 'the calls in progress ended' },
    );
    const rows = await allRows(w.api, c.id);
    for (const call of dialled) {
      const row = rows.find((r) => r.contact_phone === call.to)!;
      expect(row.sub_code, call.to).not.toBe('campaign_cancelled');
      expect(row.latest_attempt_state, call.to).toBe('completed');
    }
    // A few minutes of ticks later, still nothing new at the carrier.
    for (let i = 0; i < 4; i++) {
      const t0 = stack.schedulerTicks();
      advance(45_000);
      await waitFor(() => stack.schedulerTicks() >= t0 + 3, { timeoutMs: 10_000, message: 'scheduler ticks' });
    }
    // Launched attempts the pause caught before their dial wait, scheduled.
    expect((await allRows(w.api, c.id)).filter((r) => r.latest_attempt_state === 'scheduled').length).toBeGreaterThan(0);
    const whilePaused = await ours();
    expect(whilePaused.every((x) => x.created <= pausedAt)).toBe(true);
    expect(whilePaused.length).toBe(dialled.length);
    expect((await campaignOf(w.api, c.id)).dialed).toBe(dialled.length);

    expect((await w.api('POST', `/v1/campaigns/${c.id}/resume`)).body.status).toBe('running');
    advance(31_000); // parked attempts come back with their due items
    const done = await waitForStatus(w.api, c.id, 'completed', 120_000);
    expect(done).toMatchObject({ contacts_total: 8, dialed: 8 });
    const all = await ours();
    expect(all).toHaveLength(8);
    expect(new Set(all.map((x) => x.to)).size).toBe(8);
    expect((await allRows(w.api, c.id)).every((r) => r.disposition !== null && r.sub_code !== 'campaign_cancelled')).toBe(true);
  }, 240_000);
});
