import { describe, expect, it } from 'vitest';
import {
  CAMPAIGN_MOVES,
  counterShardsFor,
  isFinished,
  judgeAttemptEnd,
  launchable,
  launchShards,
  scrubOpen,
  shardCap,
} from '../../shared/policy/campaigns/rules.js';
import { endSubCode, rowOutcome } from '../../shared/repositories/campaign-attempt-items.js';
import { campaignOutcomeSummary } from '../../shared/schemas/campaigns.js';

const info = (number: number, max = 3, retry = 240) => ({ number, max_attempts: max, retry_after_minutes: retry });
const at = new Date('2026-11-18T15:00:00.000Z');

describe('judgeAttemptEnd', () => {
  it('retries no_answer, busy and machine after retry_after_minutes while attempts remain', () => {
    for (const state of ['no_answer', 'busy', 'machine']) {
      const v = judgeAttemptEnd({ state, disposition: state === 'machine' ? 'voicemail_machine' : state }, info(1), at);
      expect(v).toEqual({ retry: true, retry_at: '2026-11-18T19:00:00.000Z', connected: 0, completed_goal: 0, done: 0 });
    }
  });
  it('stops at max_attempts_per_contact', () => {
    expect(judgeAttemptEnd({ state: 'no_answer', disposition: 'no_answer' }, info(3), at)).toMatchObject({ retry: false, retry_at: null, done: 1 });
  });
  it('retry_after_minutes 0 retries at once', () => {
    expect(judgeAttemptEnd({ state: 'busy', disposition: 'busy' }, info(1, 2, 0), at).retry_at).toBe(at.toISOString());
  });
  it('never retries a cancelled campaign, an opt-out, a block, a failure or a completed call', () => {
    expect(judgeAttemptEnd({ state: 'no_answer', disposition: 'no_answer' }, info(1), at, true).retry).toBe(false);
    for (const end of [
      { state: 'completed', disposition: 'opt_out' },
      { state: 'disposed', disposition: 'dnc_hit' },
      { state: 'failed', disposition: 'failed' },
      { state: 'completed', disposition: 'completed_no_goal' },
    ])
      expect(judgeAttemptEnd(end, info(1), at)).toMatchObject({ retry: false, done: 1 });
  });
  it('counts connected (a person answered) and completed_goal', () => {
    expect(judgeAttemptEnd({ state: 'completed', disposition: 'completed_goal' }, info(1), at)).toMatchObject({ connected: 1, completed_goal: 1 });
    expect(judgeAttemptEnd({ state: 'completed', disposition: 'opt_out' }, info(1), at)).toMatchObject({ connected: 1, completed_goal: 0 });
    expect(judgeAttemptEnd({ state: 'machine', disposition: 'voicemail_machine' }, info(3, 3), at)).toMatchObject({ connected: 0 });
  });
});

describe('pacing and moves', () => {
  it('launches only the free slots of the cap', () => {
    expect(launchable(50, 0, 100)).toBe(50);
    expect(launchable(50, 48, 100)).toBe(2);
    expect(launchable(50, 50, 100)).toBe(0);
    expect(launchable(5, 9, 100)).toBe(0);
    expect(launchable(null, 1000, 100)).toBe(100);
  });
  it('cancel is allowed from every status but completed and cancelled', () => {
    expect([...CAMPAIGN_MOVES.cancel].sort()).toEqual(['draft', 'paused', 'ready', 'running', 'scrubbing']);
  });
  it('is finished when the scrub is complete and every contact is done', () => {
    expect(isFinished({ contacts_total: 3, done: 3, scrub_complete: true })).toBe(true);
    expect(isFinished({ contacts_total: 3, done: 2, scrub_complete: true })).toBe(false);
    expect(isFinished({ contacts_total: 0, done: 0, scrub_complete: false })).toBe(false);
  });
  it('keeps the scrub open past the move to running and through a pause, until the list is exhausted or the campaign ends', () => {
    for (const status of ['scrubbing', 'ready', 'running', 'paused']) {
      expect(scrubOpen({ status, scrub_complete: false })).toBe(true);
      expect(scrubOpen({ status, scrub_complete: true })).toBe(false);
    }
    for (const status of ['draft', 'completed', 'cancelled']) expect(scrubOpen({ status, scrub_complete: false })).toBe(false);
  });
});

describe('rows', () => {
  it('shows every structured outcome the call recorded: shift_confirmation, appointment, survey_response; none and nothing are null', () => {
    expect(rowOutcome({ outcome_type: 'shift_confirmation', response: 'confirmed', shift_id: 'S-1', event_id: 'ev1' })).toEqual({
      kind: 'shift_confirmation',
      id: 'ev1',
      response: 'confirmed',
      shift_ref: 'S-1',
      site: null,
      shift_starts_at: null,
    });
    expect(
      rowOutcome({
        outcome_type: 'appointment',
        status: 'booked',
        starts_at: '2026-06-01T15:00:00.000Z',
        duration_minutes: 30,
        event_id: 'ev2',
        goal_reached: true,
      }),
    ).toEqual({ kind: 'appointment', id: 'ev2', status: 'booked', starts_at: '2026-06-01T15:00:00.000Z', duration_minutes: 30 });
    expect(rowOutcome({ outcome_type: 'appointment', status: 'not_booked', event_id: 'ev3' })).toEqual({
      kind: 'appointment',
      id: 'ev3',
      status: 'not_booked',
      starts_at: null,
      duration_minutes: null,
    });
    expect(rowOutcome({ outcome_type: 'survey_response', complete: true, answers: { q1: '5' }, event_id: 'ev4' })).toEqual({
      kind: 'survey_response',
      id: 'ev4',
      complete: true,
      answers: { q1: '5' },
    });
    expect(rowOutcome({ outcome_type: 'none', event_id: 'ev5' })).toBeNull();
    expect(rowOutcome(null)).toBeNull();
  });
  it('every row outcome rowOutcome makes is one the CampaignOutcomeSummary schema accepts', () => {
    const outcomes = [
      { outcome_type: 'shift_confirmation', response: 'declined', event_id: 'e' },
      { outcome_type: 'appointment', status: 'rescheduled', starts_at: '2026-06-01T15:00:00.000Z', event_id: 'e' },
      { outcome_type: 'survey_response', complete: false, answers: {}, event_id: 'e' },
    ];
    for (const o of outcomes) {
      const row = {
        contact_id: 'con_1',
        contact_phone: '+12125550100',
        attempts: 1,
        latest_attempt_id: 'att_1',
        latest_attempt_state: 'completed',
        disposition: 'completed_goal',
        sub_code: null,
        call_id: 'cal_1',
        outcome: rowOutcome(o),
        last_activity_at: '2026-06-01T15:00:00.000Z',
      };
      expect(campaignOutcomeSummary.safeParse(row).success, o.outcome_type).toBe(true);
    }
  });
  it('sub_code: campaign_cancelled, the blocking reason, or the failure', () => {
    expect(endSubCode({ tenant_id: 't', id: 'c' }, { state: 'disposed', end_reason: 'campaign_cancelled' })).toBe('campaign_cancelled');
    expect(
      endSubCode(
        { tenant_id: 't', id: 'c', compliance: { reasons: [{ code: 'quiet_hours' }, { code: 'internal_dnc' }] } },
        { state: 'disposed', end_reason: 'compliance_blocked' },
      ),
    ).toBe('internal_dnc');
    expect(endSubCode({ tenant_id: 't', id: 'c' }, { state: 'no_answer', end_reason: null })).toBeNull();
  });
});

describe('counter shards', () => {
  it('one per 25 slots of the cap, 1 to 8; the shares sum to the cap exactly', () => {
    expect([1, 24, 25, 50, 199, 200, 5000].map(counterShardsFor)).toEqual([1, 1, 1, 2, 7, 8, 8]);
    expect(counterShardsFor(null)).toBe(8);
    for (const cap of [1, 7, 50, 199, 2001]) {
      const n = counterShardsFor(cap);
      const shares = Array.from({ length: n }, (_, i) => shardCap(cap, n, i)!);
      expect(
        shares.reduce((a, b) => a + b, 0),
        String(cap),
      ).toBe(cap);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
    expect(shardCap(null, 8, 3)).toBeNull();
  });
  it('launches go to the shards with the most room, never past their share', () => {
    const shards = [
      { in_flight: 3, cap: 4 },
      { in_flight: 0, cap: 4 },
      { in_flight: 4, cap: 4 },
    ];
    const plan = launchShards(shards, 10);
    expect(plan).toHaveLength(5); // 1 + 4 + 0 of room
    expect(plan.filter((i) => i === 0)).toHaveLength(1);
    expect(plan.filter((i) => i === 1)).toHaveLength(4);
    expect(plan).not.toContain(2);
    // Uncapped: in turn.
    expect(
      launchShards(
        [
          { in_flight: 9, cap: null },
          { in_flight: 0, cap: null },
        ],
        4,
      ),
    ).toEqual([0, 1, 0, 1]);
  });
});
