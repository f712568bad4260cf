/** The unfinished-call reconciler's pure decision and the carrier_unreported transition. */
import { describe, expect, it } from 'vitest';
import { dispatchKeys } from '../../shared/db/keys.js';
import { type CallState, onCarrierStatus, onCarrierUnreported } from '../../shared/policy/call-state/machine.js';
import { decideUnfinished } from '../../shared/policy/call-state/unfinished.js';
import { endOfCallWatches } from '../../shared/repositories/call-watches.js';

process.env.TABLE_NAME ??= 'unit-table';

const HOUR = 3_600_000;
const linkedAt = '2026-11-18T15:00:00.000Z';
const after = (ms: number) => ({ linkedAt, at: new Date(Date.parse(linkedAt) + ms), giveUpAfterMs: 24 * HOUR });
const status = (s: string, over: { answeredBy?: string | null; durationSeconds?: number | null } = {}) => ({
  kind: 'status' as const,
  status: s as 'completed',
  answeredBy: over.answeredBy ?? null,
  durationSeconds: over.durationSeconds ?? null,
});

describe('decideUnfinished', () => {
  it('a final status the carrier names is applied as its callbacks would have: busy, no-answer, failed, canceled alone', () => {
    for (const s of ['busy', 'no-answer', 'failed', 'canceled']) {
      expect(decideUnfinished(status(s, { durationSeconds: 0 }), after(7 * HOUR))).toEqual({
        action: 'apply',
        statuses: [{ CallStatus: s }],
        durationSeconds: 0,
      });
    }
  });

  it('a completed call that was up (a duration, or machine detection said who answered) is answered first, then completed', () => {
    expect(decideUnfinished(status('completed', { durationSeconds: 95 }), after(7 * HOUR))).toEqual({
      action: 'apply',
      statuses: [{ CallStatus: 'in-progress' }, { CallStatus: 'completed' }],
      durationSeconds: 95,
    });
    expect(decideUnfinished(status('completed', { answeredBy: 'machine_start', durationSeconds: 22 }), after(7 * HOUR))).toEqual({
      action: 'apply',
      statuses: [
        { CallStatus: 'in-progress', AnsweredBy: 'machine_start' },
        { CallStatus: 'completed', AnsweredBy: 'machine_start' },
      ],
      durationSeconds: 22,
    });
    // Completed after 0 s and nobody detected: never answered (the state machine makes it no_answer from dialing).
    expect(decideUnfinished(status('completed', { durationSeconds: 0 }), after(7 * HOUR))).toEqual({
      action: 'apply',
      statuses: [{ CallStatus: 'completed' }],
      durationSeconds: 0,
    });
  });

  it('still live: asked again later, until the hard bound, then hung up and closed', () => {
    for (const s of ['queued', 'initiated', 'ringing', 'in-progress']) {
      expect(decideUnfinished(status(s), after(7 * HOUR))).toEqual({ action: 'recheck' });
      expect(decideUnfinished(status(s), after(24 * HOUR))).toEqual({ action: 'close', hangUp: true });
    }
  });

  it('the carrier knows no such call: closed now; the carrier unreachable: asked again until the hard bound', () => {
    expect(decideUnfinished({ kind: 'unknown' }, after(7 * HOUR))).toEqual({ action: 'close', hangUp: false });
    expect(decideUnfinished({ kind: 'unavailable' }, after(23 * HOUR))).toEqual({ action: 'recheck' });
    expect(decideUnfinished({ kind: 'unavailable' }, after(25 * HOUR))).toEqual({ action: 'close', hangUp: false });
  });
});

describe('onCarrierUnreported', () => {
  it('a call never answered fails; one a person answered completes (its disposition derived later); others are left', () => {
    expect(onCarrierUnreported('dialing')).toEqual({
      state: 'failed',
      disposition: 'failed',
      disposition_set_by: 'system',
      end_reason: 'carrier_unreported',
      stamp: 'ended_at',
    });
    for (const from of ['answered', 'in_conversation'] as CallState[])
      expect(onCarrierUnreported(from)).toEqual({ state: 'completed', end_reason: 'carrier_unreported', stamp: 'ended_at' });
    for (const from of ['scheduled', 'completed', 'busy', 'failed', 'disposed', 'machine', 'no_answer'] as CallState[])
      expect(onCarrierUnreported(from)).toBeNull();
  });

  it('the carrier’s own completed on a dialing call is its no-answer (what apply relies on when nothing says it was answered)', () => {
    expect(onCarrierStatus('dialing', { CallStatus: 'completed' })).toMatchObject({ state: 'no_answer' });
  });
});

describe('endOfCallWatches', () => {
  it('an ending starts the analysis watch and deletes the unfinished watch the call names', () => {
    const at = new Date('2026-11-18T16:00:00.000Z');
    const w = endOfCallWatches({ tenant_id: 'ten_1', id: 'cal_1', unfinished_watch_at: linkedAt }, at);
    expect(w.fields).toEqual({ analysis_watch_at: at.toISOString(), unfinished_watch_at: null });
    expect(w.items).toEqual([
      {
        Put: {
          TableName: 'unit-table',
          Item: {
            ...dispatchKeys.analysis(at.toISOString(), 'ten_1', 'cal_1'),
            type: 'analysis_watch',
            tenant_id: 'ten_1',
            call_id: 'cal_1',
            since: at.toISOString(),
          },
        },
      },
      { Delete: { TableName: 'unit-table', Key: dispatchKeys.unfinished(linkedAt, 'ten_1', 'cal_1') } },
    ]);
    expect(endOfCallWatches({ tenant_id: 'ten_1', id: 'cal_1' }, at).items).toHaveLength(1);
  });
});
