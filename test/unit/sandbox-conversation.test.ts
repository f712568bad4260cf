import { describe, expect, it } from 'vitest';
import { conversationEvents, type PinnedAgentView, type SequencedEvent } from '../../shared/sandbox/conversation.js';
import { type ScenarioId, scenarioById } from '../../shared/sandbox/scenarios.js';
import { TEMPLATES } from '../../shared/schemas/template-catalogue.js';

const AT = new Date('2026-03-10T18:30:00Z');

/** A pinned version as the template makes it. */
const versionOf = (templateId: string): PinnedAgentView => {
  const t = TEMPLATES.find((x) => x.id === templateId)!;
  return {
    use_case: t.use_case,
    objectives: t.objectives,
    tools: t.tool_grants,
    disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' },
  };
};
const SDR = versionOf('tpl_sdr_outbound');
const QUESTIONS = [
  { id: 'budget', prompt: 'What is your budget?' },
  { id: 'csat', prompt: 'How satisfied are you?', scoring: { mapping: { very: 5, somewhat: 3 } } },
];

const play = (id: ScenarioId, version = SDR, questions = QUESTIONS) => conversationEvents(scenarioById(id).script!, { version, questions, at: AT });
const responses = (events: SequencedEvent[]) => events.filter((e) => e.type === 'response').map((e) => (e as { id: string }).id);
const tools = (events: SequencedEvent[]) => events.filter((e) => e.type === 'tool_call').map((e) => (e as { tool: string }).tool);
const of = <T extends SequencedEvent['type']>(events: SequencedEvent[], type: T) =>
  events.filter((e) => e.type === type) as Extract<SequencedEvent, { type: T }>[];
const everyItem = [...SDR.objectives.map((o) => o.id), 'budget', 'csat'];

describe('sandbox conversations follow the pinned agent version', () => {
  it('goal (555-0100…0109): the disclosure, every objective and question answered, the qualification recorded, the agent closes', () => {
    const events = play('goal');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(of(events, 'disclosure')).toEqual([{ type: 'disclosure', text: 'This call is from Acme Solar.', seq: 1 }]);
    expect(responses(events)).toEqual(everyItem);
    expect(of(events, 'response').find((r) => r.id === 'csat')?.value).toBe('very'); // a mapped label, so it scores
    expect(tools(events)).toEqual(['record_qualification', 'end_call']);
    expect(of(events, 'tool_call')[0]!.arguments).toEqual({ qualified: true });
    expect(events.at(-1)).toMatchObject({ type: 'hangup', by: 'agent' });
    expect(of(events, 'opt_out')).toEqual([]);
  });

  it.each([
    ['tpl_staffing_shift_confirmation', 'confirm_shift', { response: 'confirmed' }],
    ['tpl_reminder_appointment', 'book_meeting', { outcome: 'booked', appointment: { starts_at: '2026-03-11T15:00:00.000Z', duration_minutes: 30 } }],
    ['tpl_recruiting_screen', 'record_qualification', { qualified: true }],
  ])('goal for %s records %s', (template, tool, args) => {
    const events = play('goal', versionOf(template), []);
    expect(responses(events)).toEqual(versionOf(template).objectives.map((o) => o.id));
    expect(of(events, 'tool_call').find((t) => t.tool === tool)?.arguments).toEqual(args);
  });

  it('goal for a survey records a complete survey with every answer', () => {
    const version = versionOf('tpl_survey_phone');
    const survey = of(play('goal', version, [{ id: 'nps', prompt: 'How likely…?' }]), 'tool_call').find((t) => t.tool === 'record_survey_answer');
    expect(survey?.arguments).toMatchObject({
      complete: true,
      answers: { consent_to_survey: expect.any(String), ask_questions: expect.any(String), thank: expect.any(String), nps: expect.any(String) },
    });
  });

  it('a tool the version was not granted is never called', () => {
    const bare = { ...SDR, tools: ['end_call'] };
    expect(tools(play('goal', bare))).toEqual(['end_call']);
  });

  it('no goal (0110): the last item goes unanswered and the outcome is recorded as not reached', () => {
    const events = play('no_goal');
    expect(responses(events)).toEqual(everyItem.slice(0, -1));
    expect(of(events, 'tool_call')[0]).toMatchObject({ tool: 'record_qualification', arguments: { qualified: false } });
    expect(tools(play('no_goal', versionOf('tpl_reminder_appointment'), []))).toEqual(['end_call']); // nothing booked
    expect(of(play('no_goal', versionOf('tpl_survey_phone'), []), 'tool_call')[0]!.arguments).toMatchObject({ complete: false });
  });

  it('first question only (0111): one answer, then the callee hangs up; no outcome', () => {
    const events = play('first_only');
    expect(responses(events)).toEqual([everyItem[0]]);
    expect(tools(events)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'hangup', by: 'callee' });
  });

  it('declines (0112): no answers, the agent closes politely', () => {
    const events = play('declines');
    expect(responses(events)).toEqual([]);
    expect(tools(events)).toEqual(['end_call']);
    expect(events.at(-1)).toMatchObject({ type: 'hangup', by: 'agent' });
  });

  it('declines (0112) on a survey agent: the refusal is recorded (record_survey_answer declined), so the survey is declined by it', () => {
    const events = play('declines', versionOf('tpl_survey_phone'));
    expect(responses(events)).toEqual([]);
    expect(events.find((e) => e.type === 'tool_call' && e.tool === 'record_survey_answer')).toMatchObject({ arguments: { declined: true } });
  });

  it('do not call (0130) and wrong person (0131): an opt-out the agent records, then it ends the call', () => {
    for (const [id, reason] of [
      ['do_not_call', 'do_not_call'],
      ['wrong_person', 'wrong_person'],
    ] as const) {
      const events = play(id);
      expect(of(events, 'opt_out')).toEqual([expect.objectContaining({ reason })]);
      expect(responses(events)).toEqual([]);
      expect(tools(events)).toEqual(['record_optout', 'end_call']);
      expect(events.at(-1)).toMatchObject({ type: 'hangup', by: 'agent' });
    }
  });

  it('no disclosure (0140): the goal is reached but no disclosure is given', () => {
    const events = play('no_disclosure');
    expect(of(events, 'disclosure')).toEqual([]);
    expect(events.filter((e) => e.type === 'turn' && e.speaker === 'agent').map((e) => (e as { text: string }).text)).not.toContain(
      'This call is from Acme Solar.',
    );
    expect(responses(events)).toEqual(everyItem);
    expect(tools(events)).toContain('record_qualification');
  });

  it('opt-out ignored (0141): the callee opts out, the agent carries on (no record_optout), the callee hangs up', () => {
    const events = play('opt_out_ignored');
    const optOutAt = events.findIndex((e) => e.type === 'opt_out');
    expect(optOutAt).toBeGreaterThan(0);
    expect(events[optOutAt + 1]).toMatchObject({ type: 'turn', speaker: 'agent', text: SDR.objectives[0]!.description });
    expect(tools(events)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'hangup', by: 'callee' });
  });
});
