import { describe, expect, it } from 'vitest';
import { buildSurveyResponse, type SurveyCallFacts } from '../../shared/policy/surveys/survey-response.js';

const csat = { scale: 'csat', points: 5, mapping: { 'very happy': 5, happy: 4, unhappy: 1 }, weight: 2 };
const facts = (over: Partial<SurveyCallFacts> = {}): SurveyCallFacts => ({
  questions: [{ id: 'sat', scoring: csat }, { id: 'why' }],
  version: null,
  event_count: 10,
  opted_out: false,
  recorded_responses: [],
  conversation_actions: [],
  ...over,
});
const rr = (question_id: string, value: string, at = '2026-06-01T10:00:00Z') => ({ question_id, value, at });

describe('survey responses', () => {
  it('is complete when every required question is answered, with the mapped score and weight', () => {
    const r = buildSurveyResponse(facts({ recorded_responses: [rr('sat', 'Happy'), rr('why', 'Quick service')] }))!;
    expect(r.completion_status).toBe('complete');
    expect(r.answers.sat).toEqual({ value: 'Happy', answered_at: '2026-06-01T10:00:00Z', score: 4, weight: 2, points: 5 });
    expect(r.answers.why).toEqual({ value: 'Quick service', answered_at: '2026-06-01T10:00:00Z' });
    expect(r.score).toBe(0.8);
  });

  it('is partial when a required question is unanswered; an unmapped value scores null', () => {
    const r = buildSurveyResponse(facts({ recorded_responses: [rr('sat', 'meh')] }))!;
    expect(r.completion_status).toBe('partial');
    expect(r.answers.sat!.score).toBeNull();
    expect(r.answers).not.toHaveProperty('why');
    expect(r.score).toBeNull();
  });

  it('is declined on an opt-out or a declined survey action', () => {
    expect(buildSurveyResponse(facts({ recorded_responses: [rr('sat', 'happy')], opted_out: true }))!.completion_status).toBe('declined');
    expect(
      buildSurveyResponse(facts({ conversation_actions: [{ kind: 'record_survey_answer', arguments: { declined: true }, at: 'x' }] }))!.completion_status,
    ).toBe('declined');
    expect(buildSurveyResponse(facts({ opted_out: true }))!.completion_status).toBe('declined');
  });

  it('is partial, not declined, when the callee answered nothing but never refused (hung up)', () => {
    const r = buildSurveyResponse(facts({ event_count: 3 }))!;
    expect(r.completion_status).toBe('partial');
    expect(r.answers).toEqual({});
    expect(r.score).toBeNull();
  });

  it('takes the last recorded value, else a record_survey_answer action’s', () => {
    const r = buildSurveyResponse(
      facts({
        recorded_responses: [rr('sat', 'unhappy'), rr('sat', 'very happy', '2026-06-01T10:01:00Z')],
        conversation_actions: [{ kind: 'record_survey_answer', arguments: { answers: { why: 'Price' } }, at: '2026-06-01T10:02:00Z' }],
      }),
    )!;
    expect(r.answers.sat!.score).toBe(5);
    expect(r.answers.why).toEqual({ value: 'Price', answered_at: '2026-06-01T10:02:00Z' });
    expect(r.completion_status).toBe('complete');
  });

  it('asks a survey version’s objectives (optional ones need no answer); nothing without questions or without a conversation', () => {
    const version = {
      use_case: 'survey',
      objectives: [
        { id: 'nps', required: true },
        { id: 'extra', required: false },
      ],
    };
    expect(buildSurveyResponse(facts({ questions: [], version, recorded_responses: [rr('nps', '9')] }))!.completion_status).toBe('complete');
    expect(buildSurveyResponse(facts({ questions: [], version: { ...version, use_case: 'sdr' } }))).toBeNull();
    expect(buildSurveyResponse(facts({ event_count: 0 }))).toBeNull();
  });
});
