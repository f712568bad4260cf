/**
 * Campaigns (see docs/decisions/campaigns.md) through the REAL path on the local stack: an imported list of sandbox
 * test numbers → POST /v1/campaigns → start (the scrub in the scheduler tick) → launches under
 * the concurrency cap → the call-dispatch worker (cps slot, pool number, dial once) → the
 * sandbox carrier → signed callbacks → each terminal transition updating the contact's row
 * and the counters once. Retries use the controllable clock instead of waiting.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { now } from '../../shared/clock.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { locs } from './agent-fixtures.js';
import { type CallWorld, callWorld, resetClock, setClock, setCpsLimit } from './call-fixtures.js';
import { advance, allRows, campaignOf, carrierCalls, futureAllowedAt, importList, newCampaign, peaks, poolOf, waitForStatus } from './campaign-fixtures.js';
import { client, newTenant } from './client.js';
import { randomNumber } from './telephony-fixtures.js';

process.env.SANDBOX_STEP_MS = '150';
process.env.ANALYSIS_DELAY_SECONDS = '1';

const stack = useTestStack({ workers: true, schedulerTickMs: 200 });
afterEach(() => resetClock());

let w: CallWorld;
let other: CallWorld;
beforeAll(async () => {
  const t = await newTenant('Campaigns');
  w = await callWorld(client(stack, t.token), t.tenantId);
  await setCpsLimit(t.tenantId, w.accountId, 2);
  const o = await newTenant('Other');
  other = await callWorld(client(stack, o.token), o.tenantId);
});

/** The README's test numbers and what each contact must end with (max_attempts_per_contact 2). */
const EXPECTED = [
  { phone: '+12125550100', disposition: 'completed_goal', state: 'completed', attempts: 1 },
  { phone: '+12125550110', disposition: 'completed_no_goal', state: 'completed', attempts: 1 },
  { phone: '+12125550120', disposition: 'busy', state: 'busy', attempts: 2 },
  { phone: '+12125550121', disposition: 'no_answer', state: 'no_answer', attempts: 2 },
  { phone: '+12125550122', disposition: 'voicemail_machine', state: 'machine', attempts: 2 },
  { phone: '+12125550123', disposition: 'failed', state: 'failed', attempts: 1 },
  { phone: '+12125550130', disposition: 'opt_out', state: 'completed', attempts: 1 },
];
const SUPPRESSED = '+12125550199';

describe('a campaign over an imported list of sandbox test numbers', () => {
  it('runs to completion: each row ends as its number does, 0121 retried up to the cap, a suppressed contact disposed at scrub, caps never exceeded', async () => {
    setClock(futureAllowedAt());
    const listId = await importList(w.api, [...EXPECTED.map((e) => e.phone), SUPPRESSED]);
    expect((await w.api('POST', '/v1/suppressions', { body: { phone_e164: SUPPRESSED, reason: 'opt_out' } })).status).toBeLessThan(300);
    const pool = await poolOf(w, 1);
    const created = await newCampaign(w, listId, pool.id, { max_attempts_per_contact: 2, concurrency_cap: 2, retry_after_minutes: 30 });
    expect(created).toMatchObject({
      status: 'draft',
      agent_version_id: null,
      scrub_run_id: null,
      contacts_total: 0,
      dialed: 0,
      max_attempts_per_contact: 2,
      concurrency_cap: 2,
      retry_after_minutes: 30,
    });

    const started = await w.api('POST', `/v1/campaigns/${created.id}/start`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: 'scrubbing', agent_version_id: w.versionId });
    expect(started.body.scrub_run_id).toMatch(/^scr_/);
    expect((await w.api('POST', `/v1/campaigns/${created.id}/start`)).status).toBe(409);

    // First round: everything but the three retried numbers ends; those wait 30 minutes.
    await waitFor(
      async () => {
        const rows = await allRows(w.api, created.id);
        const waiting = rows.filter((r) => ['+12125550120', '+12125550121', '+12125550122'].includes(r.contact_phone));
        return (
          rows.length === 8 &&
          waiting.every((r) => r.attempts === 1 && ['busy', 'no_answer', 'machine'].includes(r.latest_attempt_state)) &&
          rows.filter((r) => r.disposition !== null).length === 8
        );
      },
      { timeoutMs: 120_000, intervalMs: 250, message: 'first round ended' },
    );
    expect((await campaignOf(w.api, created.id)).status).toBe('running');
    advance(31 * 60_000);
    const done = await waitForStatus(w.api, created.id, 'completed');

    const rows = await allRows(w.api, created.id);
    for (const e of EXPECTED) {
      const row = rows.find((r) => r.contact_phone === e.phone);
      expect(row, e.phone).toMatchObject({ disposition: e.disposition, latest_attempt_state: e.state, attempts: e.attempts });
      // The SDR agent records an appointment outcome: the row shows it (every structured outcome, not only shift confirmations).
      if (e.disposition === 'completed_goal') expect(row!.outcome, e.phone).toMatchObject({ kind: 'appointment', status: 'booked', id: expect.any(String) });
      if (e.state !== 'completed') expect(row!.outcome, e.phone).toBeNull();
      expect(row!.call_id, e.phone).toMatch(/^cal_/);
    }
    expect(rows.find((r) => r.contact_phone === SUPPRESSED)).toMatchObject({
      disposition: 'dnc_hit',
      sub_code: 'internal_dnc',
      attempts: 0,
      call_id: null,
      latest_attempt_state: 'disposed',
    });
    expect(done).toMatchObject({ contacts_total: 8, dialed: 10, connected: 3, completed_goal: 1 });
    expect(done.scrub).toMatchObject({ allowed: 7, blocked: 1, by_disposition: { dnc_hit: 1 } });

    // What the carrier really did: 10 dials, never more than 2 at once, never more than 2 in any one second of its clock, from both numbers.
    const calls = await carrierCalls(pool.numbers);
    expect(calls).toHaveLength(10);
    expect(calls.filter((c) => c.to === '+12125550121')).toHaveLength(2);
    expect(calls.some((c) => c.to === SUPPRESSED)).toBe(false);
    const p = peaks(calls);
    expect(p.inFlight).toBeLessThanOrEqual(2);
    expect(p.perSecond).toBeLessThanOrEqual(2);
    expect(new Set(calls.map((c) => c.from)).size).toBe(2);

    // Outcome filters, and a completed campaign cannot be cancelled.
    expect((await allRows(w.api, created.id, '&disposition=no_answer')).map((r) => r.contact_phone)).toEqual(['+12125550121']);
    expect((await allRows(w.api, created.id, '&sub_code=internal_dnc')).map((r) => r.contact_phone)).toEqual([SUPPRESSED]);
    const withOutcome = await allRows(w.api, created.id, '&has_outcome=true');
    expect(withOutcome.map((r) => r.contact_phone)).toContain('+12125550100');
    expect(withOutcome.every((r) => r.outcome !== null)).toBe(true);
    expect(await allRows(w.api, created.id, '&has_outcome=false')).toHaveLength(8 - withOutcome.length);
    expect((await allRows(w.api, created.id, '&disposition.in=busy,failed')).map((r) => r.contact_phone).sort()).toEqual(['+12125550120', '+12125550123']);
    expect((await w.api('POST', `/v1/campaigns/${created.id}/cancel`)).status).toBe(409);
    expect((await w.api('GET', `/v1/campaigns?status=completed`)).body.data.map((c: { id: string }) => c.id)).toContain(created.id);
  }, 300_000);
});

describe('a machine attempt', () => {
  it('holds its slot while the voicemail drop plays: the next contact is dialled only after the carrier ends the leg', async () => {
    // A tenant of its own: its number's carrier records hold this campaign's calls only.
    const t = await newTenant('Machine slot');
    const w = await callWorld(client(stack, t.token), t.tenantId);
    setClock(futureAllowedAt());
    const listId = await importList(w.api, ['+12125550122', '+12125550100']);
    const pool = await poolOf(w, 0);
    const c = await newCampaign(w, listId, pool.id, { max_attempts_per_contact: 1, concurrency_cap: 1 });
    expect((await w.api('POST', `/v1/campaigns/${c.id}/start`)).status).toBe(200);
    const done = await waitForStatus(w.api, c.id, 'completed');
    expect(done).toMatchObject({ contacts_total: 2, dialed: 2 });
    const calls = (await carrierCalls(pool.numbers)).filter((x) => ['+12125550122', '+12125550100'].includes(x.to));
    expect(calls).toHaveLength(2);
    expect(peaks(calls).inFlight).toBe(1);
  }, 120_000);
});

describe('cancel mid-run', () => {
  it('disposes what is not dialling with campaign_cancelled; nothing is dialled after the cancel answers', async () => {
    setClock(futureAllowedAt());
    const phones = Array.from({ length: 12 }, () => randomNumber('212'));
    const listId = await importList(w.api, phones);
    const pool = await poolOf(w, 0);
    const c = await newCampaign(w, listId, pool.id, { concurrency_cap: 2 });
    await w.api('POST', `/v1/campaigns/${c.id}/start`);
    await waitFor(async () => (await carrierCalls(pool.numbers)).filter((x) => phones.includes(x.to)).length >= 2, {
      timeoutMs: 60_000,
      intervalMs: 100,
      message: 'two dials',
    });
    const cancelled = await w.api('POST', `/v1/campaigns/${c.id}/cancel`);
    const cancelledAt = now().getTime(); // the platform clock, as the carrier's records use
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await w.api('POST', `/v1/campaigns/${c.id}/cancel`)).status).toBe(409);

    const rows = await waitFor(
      async () => {
        const r = await allRows(w.api, c.id);
        return r.length === 12 && r.every((x) => x.disposition !== null || x.sub_code === 'campaign_cancelled') ? r : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, message: 'every row settled' },
    );
    const cancelledRows = rows.filter((r) => r.sub_code === 'campaign_cancelled');
    expect(cancelledRows.length).toBeGreaterThan(0);
    for (const r of cancelledRows) expect(r).toMatchObject({ latest_attempt_state: 'disposed', disposition: null });
    // The carrier's own record: no call created after the cancel answered.
    const ours = (await carrierCalls(pool.numbers)).filter((x) => phones.includes(x.to));
    expect(ours.every((x) => x.created <= cancelledAt)).toBe(true);
    expect(ours.length).toBe(rows.filter((r) => r.sub_code !== 'campaign_cancelled').length);
    const fresh = await campaignOf(w.api, c.id);
    expect(fresh.dialed).toBe(ours.length);
  }, 180_000);
});

describe('validation and isolation', () => {
  it('422s at exact locs, 404s across tenants', async () => {
    const bad = await w.api('POST', '/v1/campaigns', {
      body: {
        name: 'x',
        agent_id: 'agt_01JZZZZZZZZZZZZZZZZZZZZZZZ',
        target: { contact_list_id: 'lst_01JZZZZZZZZZZZZZZZZZZZZZZZ' },
        number_pool_id: 'npl_01JZZZZZZZZZZZZZZZZZZZZZZZ',
        telephony_account_id: 'tac_01JZZZZZZZZZZZZZZZZZZZZZZZ',
        max_attempts_per_contact: 11,
        retry_after_minutes: -1,
      },
    });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual(['body.max_attempts_per_contact:less_than_equal', 'body.retry_after_minutes:greater_than_equal']);
    const refs = await w.api('POST', '/v1/campaigns', {
      body: {
        name: 'x',
        agent_id: 'agt_01JZZZZZZZZZZZZZZZZZZZZZZZ',
        target: { contact_list_id: 'lst_01JZZZZZZZZZZZZZZZZZZZZZZZ' },
        number_pool_id: 'npl_01JZZZZZZZZZZZZZZZZZZZZZZZ',
        telephony_account_id: 'tac_01JZZZZZZZZZZZZZZZZZZZZZZZ',
      },
    });
    expect(refs.status).toBe(422);
    expect(refs.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'body.agent_id',
      'body.number_pool_id',
      'body.target.contact_list_id',
      'body.telephony_account_id',
    ]);
    const foreignNumber = await w.api('POST', '/v1/number-pools', { body: { name: 'p', phone_number_ids: [w.number.id, other.number.id] } });
    expect(foreignNumber.status).toBe(422);
    expect(foreignNumber.body.detail[0].loc).toEqual(['body', 'phone_number_ids', 1]);

    const listId = await importList(w.api, [randomNumber('212')]);
    const pool = await poolOf(w, 0);
    const c = await newCampaign(w, listId, pool.id);
    for (const [method, path] of [
      ['GET', `/v1/campaigns/${c.id}`],
      ['GET', `/v1/campaigns/${c.id}/outcomes`],
      ['POST', `/v1/campaigns/${c.id}/start`],
      ['POST', `/v1/campaigns/${c.id}/pause`],
      ['POST', `/v1/campaigns/${c.id}/resume`],
      ['POST', `/v1/campaigns/${c.id}/cancel`],
      ['GET', `/v1/number-pools/${pool.id}`],
      ['PATCH', `/v1/number-pools/${pool.id}`],
    ] as const) {
      const res = await other.api(method, path, method === 'PATCH' ? { body: { name: 'mine' } } : {});
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // Using another tenant's pool is a 422 at its loc.
    const otherPool = await poolOf(other, 0);
    const cross = await w.api('POST', '/v1/campaigns', {
      body: { name: 'x', agent_id: w.agentId, target: { contact_list_id: listId }, number_pool_id: otherPool.id, telephony_account_id: w.accountId },
    });
    expect(locs(cross.body)).toEqual(['body.number_pool_id:value_error']);
    // Draft → cancelled; pause of a draft is a conflict; the idempotent create replays.
    expect((await w.api('POST', `/v1/campaigns/${c.id}/pause`)).status).toBe(409);
    expect((await w.api('POST', `/v1/campaigns/${c.id}/cancel`)).body.status).toBe('cancelled');
    const key = `k-${Math.random()}`;
    const body = { name: 'Once', agent_id: w.agentId, target: { contact_list_id: listId }, number_pool_id: pool.id, telephony_account_id: w.accountId };
    const first = await w.api('POST', '/v1/campaigns', { body, headers: { 'idempotency-key': key } });
    const again = await w.api('POST', '/v1/campaigns', { body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect((await w.api('GET', `/v1/number-pools`)).body.data.length).toBeGreaterThan(0);
  }, 120_000);
});
