import { describe, expect, it } from 'vitest';
import {
  CALL_STATES,
  type CallState,
  isTerminal,
  onCarrierStatus,
  onConversationStarted,
  onDispatchUnknown,
  onDisposedBeforeDial,
} from '../../shared/policy/call-state/machine.js';

/** Apply callbacks in order, as the store would (each change conditional on the state it came from). */
const run = (from: CallState, statuses: { CallStatus: string; AnsweredBy?: string; SipResponseCode?: string }[]) =>
  statuses.reduce<{ state: CallState; changes: number; disposition?: string }>(
    (acc, s) => {
      const change = onCarrierStatus(acc.state, s);
      return change ? { state: change.state, changes: acc.changes + 1, disposition: change.disposition ?? acc.disposition } : acc;
    },
    { state: from, changes: 0 },
  );

describe('the call state machine', () => {
  it('a human-answered call: dialing → answered → in_conversation → completed', () => {
    const answered = run('dialing', [{ CallStatus: 'initiated' }, { CallStatus: 'ringing' }, { CallStatus: 'in-progress' }]);
    expect(answered).toEqual({ state: 'answered', changes: 1 });
    expect(onConversationStarted('answered')).toEqual({ state: 'in_conversation' });
    expect(onCarrierStatus('in_conversation', { CallStatus: 'completed' })).toEqual({ state: 'completed', end_reason: 'carrier_completed', stamp: 'ended_at' });
  });

  it.each([
    ['busy', 'busy', 'busy', 'carrier_busy_sip_486'],
    ['no-answer', 'no_answer', 'no_answer', 'carrier_no_answer_sip_487'],
    ['failed', 'failed', 'failed', 'carrier_failed_sip_503'],
  ])('dialing + %s → %s with the carrier as the disposer', (status, state, disposition, reason) => {
    const sipCode = { busy: '486', 'no-answer': '487', failed: '503' }[status]!;
    expect(onCarrierStatus('dialing', { CallStatus: status, SipResponseCode: sipCode })).toEqual({
      state,
      disposition,
      disposition_set_by: 'carrier',
      end_reason: reason,
      stamp: 'ended_at',
    });
  });

  it('an answering machine ends as machine / voicemail_machine, and its later completed changes nothing', () => {
    const r = run('dialing', [
      { CallStatus: 'ringing' },
      { CallStatus: 'in-progress', AnsweredBy: 'machine_start' },
      { CallStatus: 'completed', AnsweredBy: 'machine_start' },
    ]);
    expect(r).toEqual({ state: 'machine', changes: 1, disposition: 'voicemail_machine' });
  });

  it('replayed and reordered callbacks never move a call backwards or twice', () => {
    const ordered = run('dialing', [{ CallStatus: 'ringing' }, { CallStatus: 'in-progress' }, { CallStatus: 'completed' }]);
    const shuffled = run('dialing', [{ CallStatus: 'completed' }, { CallStatus: 'in-progress' }, { CallStatus: 'ringing' }, { CallStatus: 'completed' }]);
    expect(ordered.state).toBe('completed');
    // completed before any answer is the carrier's no-answer; nothing after it moves the call.
    expect(shuffled).toEqual({ state: 'no_answer', changes: 1, disposition: 'no_answer' });
    expect(run('in_conversation', [{ CallStatus: 'ringing' }, { CallStatus: 'in-progress' }])).toEqual({ state: 'in_conversation', changes: 0 });
    for (const terminal of CALL_STATES.filter(isTerminal)) {
      for (const s of ['initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled'])
        expect(onCarrierStatus(terminal, { CallStatus: s }), `${terminal}+${s}`).toBeNull();
    }
  });

  it('system moves: disposed only before dialling; the reconciler fails only a dialing call', () => {
    const why = { disposition: 'blocked_by_policy', set_by: 'compliance' as const, end_reason: 'consent_missing' };
    expect(onDisposedBeforeDial('scheduled', why)).toMatchObject({ state: 'disposed', disposition: 'blocked_by_policy', disposition_set_by: 'compliance' });
    expect(onDisposedBeforeDial('dialing', why)).toBeNull();
    expect(onDispatchUnknown('dialing')).toMatchObject({ state: 'failed', end_reason: 'dispatch_unknown', disposition_set_by: 'system' });
    expect(onDispatchUnknown('answered')).toBeNull();
    expect(onCarrierStatus('dialing', { CallStatus: 'mystery' })).toBeNull();
  });
});
