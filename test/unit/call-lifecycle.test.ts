/** The pure parts of the outbound lifecycle: the completed disposition, the CallFacts mapping, the voicemail drop, cancel. */
import { describe, expect, it } from 'vitest';
import { callFactsOf, type StoredCallEvent } from '../../shared/calls/call-facts.js';
import { presentCall } from '../../shared/calls/present-call.js';
import { scoreCall } from '../../shared/policy/analysis/index.js';
import { completedDisposition } from '../../shared/policy/call-state/disposition.js';
import { onCarrierStatus } from '../../shared/policy/call-state/machine.js';
import { buildRubric } from '../../shared/policy/rubric.js';
import { cancelChange, outboundChange } from '../../shared/repositories/call-lifecycle.js';
import type { CallRecordWithEvents } from '../../shared/repositories/runtime-events.js';
import { spokenNumber, voicemailParts, voicemailTwiml } from '../../shared/telephony/outbound-answer.js';

describe('completedDisposition', () => {
  it('opt-out wins, then the goal, then a conversation, else answered_incomplete', () => {
    expect(completedDisposition({ opt_out: { reason: 'opt_out' }, outcome: { goal_reached: true }, turn_count: 4 })).toEqual({
      disposition: 'opt_out',
      disposition_set_by: 'agent_llm',
    });
    expect(completedDisposition({ opt_out: { reason: 'wrong_person' }, turn_count: 2 })).toEqual({
      disposition: 'wrong_person_opt_out',
      disposition_set_by: 'agent_llm',
    });
    expect(completedDisposition({ outcome: { goal_reached: true }, turn_count: 6 })).toEqual({
      disposition: 'completed_goal',
      disposition_set_by: 'agent_llm',
    });
    expect(completedDisposition({ outcome: { goal_reached: false }, turn_count: 6 })).toEqual({
      disposition: 'completed_no_goal',
      disposition_set_by: 'agent_llm',
    });
    expect(completedDisposition({ turn_count: 3 })).toEqual({ disposition: 'completed_no_goal', disposition_set_by: 'system' });
    expect(completedDisposition({})).toEqual({ disposition: 'answered_incomplete', disposition_set_by: 'carrier' });
    expect(completedDisposition({ turn_count: 0, outcome: null, opt_out: null })).toEqual({
      disposition: 'answered_incomplete',
      disposition_set_by: 'carrier',
    });
  });

  it('only a completed change of an answered call is derived; carrier ends keep their own', () => {
    const call = { state: 'in_conversation', outcome: { goal_reached: true }, turn_count: 2 } as unknown as CallRecordWithEvents;
    expect(outboundChange(call, onCarrierStatus('in_conversation', { CallStatus: 'completed' }))).toMatchObject({
      state: 'completed',
      disposition: 'completed_goal',
      disposition_set_by: 'agent_llm',
    });
    expect(outboundChange(call, onCarrierStatus('dialing', { CallStatus: 'busy' }))).toMatchObject({
      state: 'busy',
      disposition: 'busy',
      disposition_set_by: 'carrier',
    });
    expect(outboundChange(call, onCarrierStatus('completed', { CallStatus: 'completed' }))).toBeNull();
  });

  it('cancel applies to outbound calls before the dial only', () => {
    expect(cancelChange({ direction: 'outbound', state: 'scheduled' })).toMatchObject({
      state: 'disposed',
      end_reason: 'cancelled',
      disposition: null,
      disposition_set_by: null,
      stamp: 'ended_at',
    });
    expect(cancelChange({ direction: 'outbound', state: 'dialing' })).toBeNull();
    expect(cancelChange({ direction: 'outbound', state: 'disposed' })).toBeNull();
    expect(cancelChange({ direction: 'inbound', state: 'answered' })).toBeNull();
  });
});

const ev = (seq: number, event_type: string, event: Record<string, unknown>): StoredCallEvent => ({
  event_id: `e${seq}`,
  event_type,
  seq,
  event: { type: event_type, ...event },
});
const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 12, 0, s)).toISOString();

function outboundCall(over: Partial<CallRecordWithEvents> = {}): CallRecordWithEvents {
  return {
    id: 'cal_1',
    tenant_id: 't',
    direction: 'outbound',
    state: 'completed',
    disposition: 'completed_goal',
    disposition_set_by: 'agent_llm',
    end_reason: 'carrier_completed',
    from_e164: '+14155550100',
    to_e164: '+12125550100',
    phone_number_id: 'num_1',
    telephony_account_id: 'tel_1',
    provider: 'mock',
    provider_call_sid: 'CA1',
    inbound: null,
    recording_url: null,
    answered_at: at(0),
    ended_at: at(30),
    duration_seconds: 30,
    created_at: at(0),
    updated_at: at(30),
    questions: [{ id: 'roof_age', prompt: 'How old is your roof?' }],
    ...over,
  } as CallRecordWithEvents;
}

describe('callFactsOf (the analysis worker mapping)', () => {
  it('maps turns in seq order, attributes the disclosure to the next agent turn and the opt-out to the last contact turn', () => {
    const events = [
      ev(4, 'turn', { speaker: 'contact', text: 'Stop calling me', at: at(5), start_ms: 5000, end_ms: 6000 }),
      ev(1, 'turn', { speaker: 'contact', text: 'Hello?', at: at(0), start_ms: 0, end_ms: 600 }),
      ev(2, 'disclosure', { text: 'This call is from Acme Solar.', at: at(1) }),
      ev(3, 'turn', { speaker: 'agent', text: 'This call is from Acme Solar.', at: at(1), start_ms: 1000, end_ms: 2500, latency_ms: 400 }),
      ev(5, 'opt_out', { reason: 'opt_out', at: at(6) }),
      ev(6, 'turn', { speaker: 'agent', text: 'Understood. Goodbye.', at: at(7), start_ms: 7000, end_ms: 8000, latency_ms: 300 }),
      ev(7, 'hangup', { by: 'agent', at: at(8) }),
    ];
    const facts = callFactsOf(
      outboundCall({
        disposition: 'opt_out',
        hangup: { by: 'agent', reason: null, event_id: 'e7', at: at(8) },
        conversation_actions: [
          { id: 'a1', event_id: 'x', kind: 'book_meeting', arguments: {}, action_confirmation: null, at: at(3) },
          { id: 'a2', event_id: 'y', kind: 'record_optout', arguments: {}, action_confirmation: null, at: at(3) },
          {
            id: 'a3',
            event_id: 'z',
            kind: 'confirm_shift',
            arguments: {},
            action_confirmation: { kind: 'read_back', response: 'corrected', method: 'voice', policy_version: null },
            at: at(3),
          },
        ],
        recorded_responses: [
          {
            event_id: 'r',
            kind: 'question',
            question_id: 'roof_age',
            value: '10',
            value_truncated: false,
            note: null,
            note_truncated: false,
            fit_review: { status: 'unreviewed', reason_truncated: false, latest_review: null },
            at: at(2),
          },
        ],
        outcome: { outcome_type: 'none', goal_reached: false, event_id: 'o', at: at(7) },
      }),
      events,
    );
    expect(facts.turns.map((t) => t.text)).toEqual(['Hello?', 'This call is from Acme Solar.', 'Stop calling me', 'Understood. Goodbye.']);
    expect(facts.turns[1]).toMatchObject({ speaker: 'agent', started_at: at(1), ended_at: new Date(Date.parse(at(1)) + 1500).toISOString(), latency_ms: 400 });
    expect(facts.disclosure).toEqual({ turn_index: 1 });
    expect(facts.opt_out).toEqual({ at: at(6), turn_index: 2, reason: 'do_not_call' });
    expect(facts.ended_by).toBe('agent');
    expect(facts.answered_by).toBe('human');
    expect(facts.conversation_actions.map((a) => a.confirmation)).toEqual(['missing', 'not_required', 'confirmed']);
    expect(facts.recorded_responses).toEqual([{ source: 'question', id: 'roof_age' }]);
    expect(facts.question_ids).toEqual(['roof_age']);
    expect(facts.outcome).toEqual({ kind: 'none', payload: { goal_reached: false } });
    expect(facts.knowledge_pack).toBeNull();
    expect(facts.grounding).toBeNull();
    // And it scores: the opt-out was honoured (one closing agent turn, the agent hung up).
    const evaluation = scoreCall(facts, buildRubric('agv_1', []));
    expect(evaluation.dimensions.optout_honored.result).toBe('pass');
    expect(evaluation.dimensions.disclosure_given.result).toBe('pass');
  });

  it('a machine or an unanswered call has no conversation: every dimension not_applicable', () => {
    const machine = callFactsOf(outboundCall({ state: 'machine', disposition: 'voicemail_machine' }), []);
    expect(machine).toMatchObject({ answered_by: 'machine', turns: [], disclosure: null, opt_out: null });
    const busy = callFactsOf(outboundCall({ state: 'busy', disposition: 'busy', answered_at: null }), []);
    expect(busy).toMatchObject({ answered_by: null, ended_by: null });
    const evaluation = scoreCall(busy, buildRubric('agv_1', []));
    expect(evaluation.verdict).toBe('not_applicable');
    expect(evaluation.dimensions.optout_honored.result).toBe('not_applicable');
  });

  it('a carrier-ended answered call without a runtime hang-up is ended_by carrier; a disclosure after the last agent turn goes to that turn', () => {
    const facts = callFactsOf(outboundCall(), [ev(1, 'turn', { speaker: 'agent', text: 'Hi', at: at(0) }), ev(2, 'disclosure', { text: 'Acme', at: at(1) })]);
    expect(facts.ended_by).toBe('carrier');
    expect(facts.disclosure).toEqual({ turn_index: 0 });
    expect(facts.turns[0]).toMatchObject({ started_at: at(0), ended_at: at(0) });
  });
});

describe('the voicemail drop', () => {
  const definition = {
    disclosure_config: { business_name: 'Acme Solar' },
    conversation_settings: { default_language: 'en-US', supported_languages: ['en-US'], allow_language_switch: false },
    voicemail_drop: { body: { 'es-US': 'Hola', 'en-US': 'We have news.' }, callback_number: '+14155550199' },
  };
  it('opener names the business, body in the default language, closing with the number read digit by digit', () => {
    const parts = voicemailParts(definition);
    expect(parts.opener).toBe('Hello, this is an automated message from Acme Solar.');
    expect(parts.body).toBe('We have news.');
    expect(parts.closing).toContain('4 1 5 5 5 5 0 1 9 9');
    expect(voicemailTwiml(parts)).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Say language="en-US">${parts.opener}</Say><Say language="en-US">We have news.</Say><Say language="en-US">${parts.closing}</Say><Hangup/></Response>`,
    );
  });
  it('without a voicemail_drop: opener and a closing without a number', () => {
    const parts = voicemailParts({ ...definition, voicemail_drop: null });
    expect(parts.body).toBeNull();
    expect(parts.closing).toContain('Acme Solar');
    expect(spokenNumber('+442071234567')).toBe('4 4 2 0 7 1 2 3 4 5 6 7');
  });
});

describe('presentCall', () => {
  it('an unreadable analysis is null; absent aggregates render as empty', () => {
    const d = presentCall(outboundCall({ analysis: { results_schema_version: 99, success_evaluation: {} } }));
    expect(d.analysis).toBeNull();
    expect(d).toMatchObject({
      recorded_response_count: 0,
      recorded_responses: [],
      conversation_actions: [],
      qualification_reviews: {},
      opted_out: false,
      outcome: null,
      attempt_id: null,
    });
  });
});
