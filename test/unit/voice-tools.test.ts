import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildSurveyResponse } from '../../shared/policy/surveys/survey-response.js';
import { readQualification } from '../../shared/policy/workflow/qualification.js';
import { applyEvents, emptyAggregates } from '../../shared/schemas/call-aggregates.js';
import { runtimeEventsRequest } from '../../shared/schemas/runtime-events.js';
import { receptionistEventFor } from '../../shared/schemas/webhooks.js';
import { type CallBrief, type ControlPlane, ControlPlaneError, type RuntimeEventInput } from '../../shared/voice/ports.js';
import type { HandoffData } from '../../shared/voice/protocol.js';
import { type EventIds, grantedTools, TOOL_CATALOGUE, ToolError, VOICE_TOOLS } from '../../shared/voice/tools.js';

const NOW = new Date('2026-11-24T12:00:00Z');
const SLOTS = [
  '2026-11-25T15:00:00Z',
  '2026-11-25T15:30:00Z',
  '2026-11-25T16:00:00Z',
  '2026-11-25T16:30:00Z',
  '2026-11-25T17:00:00Z',
  '2026-11-26T15:00:00Z',
  '2026-11-26T16:00:00Z',
].map((s) => ({ starts_at: s, ends_at: new Date(Date.parse(s) + 30 * 60_000).toISOString() }));

function brief(over: Partial<CallBrief> = {}, tools: string[] = [...VOICE_TOOLS]): CallBrief {
  return {
    claims: { tenant_id: 'ten_1', call_id: 'cal_1', agent_version_id: 'agv_1', number_id: 'num_1', exp: 2_000_000_000 },
    direction: 'outbound',
    use_case: 'sdr',
    outcome_type: 'appointment',
    objectives: [{ id: 'qualify', description: 'Qualify', required: true }],
    definition: { tools, llm_route: { primary: 'sandbox', fallbacks: [] }, disclosure_config: {}, conversation_settings: { default_language: 'en-US' } },
    questions: [{ id: 'budget', prompt: 'What is your budget?' }],
    context: {},
    transfer_targets: [{ rep_id: 'rep_alice', name: 'Alice' }],
    ...over,
  };
}

/** The control plane in memory: every batch must be one the events route's schema takes. */
class MemoryControlPlane implements ControlPlane {
  batches: RuntimeEventInput[][] = [];
  queries: unknown[] = [];
  postFailure: Error | null = null;
  calendarFailure: Error | null = null;
  slots = SLOTS;
  async loadCall() {
    return null;
  }
  async postEvents(events: readonly RuntimeEventInput[]) {
    if (this.postFailure) throw this.postFailure;
    const checked = runtimeEventsRequest.safeParse({ events });
    if (!checked.success) throw new ControlPlaneError(`route would refuse: ${checked.error.message}`, 422);
    this.batches.push([...events]);
  }
  async checkCalendar(query: { start_date: string; end_date: string; duration_minutes: number; timezone?: string }) {
    this.queries.push(query);
    if (this.calendarFailure) throw this.calendarFailure;
    return { slots: this.slots };
  }
  get events() {
    return this.batches.flat();
  }
}

const counterIds = (session = 's1'): EventIds => {
  let n = 0;
  return { next: (prefix) => `${session}-${prefix}-${++n}`, now: () => NOW };
};

function session(b: CallBrief = brief()) {
  const cp = new MemoryControlPlane();
  const ends: HandoffData[] = [];
  const tools = grantedTools(b, cp, { requestEnd: (d) => ends.push(d) }, counterIds());
  const signal = new AbortController().signal;
  const call = (name: string, args: unknown) => {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new Error(`${name} not offered`);
    return tool.execute(args, { signal });
  };
  return { cp, ends, tools, call };
}

/** The aggregates the events route would store for what the session posted. */
const aggregatesOf = (events: RuntimeEventInput[]) => {
  const parsed = runtimeEventsRequest.parse({ events }).events;
  const applied = applyEvents(
    emptyAggregates(),
    parsed.map((event, index) => ({ event, index })),
    {
      state: 'in_conversation',
      receivedAt: NOW.toISOString(),
      bounds: { audio_seconds: 1e6, gpu_seconds: 1e6, characters_spoken: 1e9, llm_input_tokens: 1e9, llm_output_tokens: 1e9 },
      outcomeFrozen: false,
    },
  );
  if (!applied.ok) throw new Error(JSON.stringify(applied.issues));
  return applied.aggregates;
};

describe('tool input schemas', () => {
  it('are shared by calls with the same scope (their JSON form is derived once), and differ with the scope', () => {
    const inputs = (b: CallBrief) => Object.fromEntries(session(b).tools.map((t) => [t.name, t.input]));
    const first = inputs(brief());
    const again = inputs(brief({ claims: { tenant_id: 'ten_2', call_id: 'cal_9', agent_version_id: 'agv_1', number_id: 'num_1', exp: 2_000_000_000 } }));
    for (const name of Object.keys(first)) expect(again[name], name).toBe(first[name]);
    const otherRep = inputs(brief({ transfer_targets: [{ rep_id: 'rep_bob', name: 'Bob' }] }));
    expect(otherRep.transfer_to_human).not.toBe(first.transfer_to_human);
    expect(otherRep.transfer_to_human!.safeParse({ rep_id: 'rep_alice' }).success).toBe(false);
    expect(first.transfer_to_human!.safeParse({ rep_id: 'rep_alice' }).success).toBe(true);
    const otherQuestion = inputs(brief({ questions: [{ id: 'timeline', prompt: 'When?' }] }));
    expect(otherQuestion.record_qualification).not.toBe(first.record_qualification);
    expect(otherQuestion.end_call).toBe(first.end_call);
  });
});

describe('grantedTools offers only what the pinned version grants', () => {
  it('returns the granted tools the runtime executes, in the version order; nothing else', () => {
    const { tools } = session(brief({}, ['end_call', 'book_meeting', 'verify_identity', 'custom_webhook', 'check_calendar']));
    expect(tools.map((t) => t.name)).toEqual(['end_call', 'book_meeting', 'check_calendar']);
  });

  it('offers no transfer without anyone to transfer to, and names reps by id and name only', () => {
    expect(session(brief({ transfer_targets: [] })).tools.some((t) => t.name === 'transfer_to_human')).toBe(false);
    const transfer = session().tools.find((t) => t.name === 'transfer_to_human')!;
    expect(JSON.stringify(z.toJSONSchema(transfer.input))).toContain('rep_alice (Alice)');
  });

  it('every tool has a description and a strict input schema a provider can take as JSON Schema', () => {
    expect(Object.keys(TOOL_CATALOGUE).sort()).toEqual([...VOICE_TOOLS].sort());
    for (const tool of session().tools) {
      expect(tool.description.length).toBeGreaterThan(10);
      expect(z.toJSONSchema(tool.input, { io: 'input' })).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });
});

describe('each tool reports what the control plane already takes', () => {
  it('check_calendar asks the calendar route and tells at most five slots, readable aloud', async () => {
    const { cp, call } = session();
    const out = (await call('check_calendar', { start_date: '2026-11-25', end_date: '2026-11-27', timezone: 'America/New_York' })) as {
      slots: { starts_at: string; local: string }[];
      more_available: boolean;
    };
    expect(cp.queries).toEqual([{ start_date: '2026-11-25', end_date: '2026-11-27', duration_minutes: 30, timezone: 'America/New_York' }]);
    expect(out.slots).toHaveLength(5);
    expect(out.more_available).toBe(true);
    expect(out.slots[0]!.local).toMatch(/Wednesday, November 25.*10:00/);
    expect(cp.events).toEqual([]);
  });

  it('check_calendar without a connected calendar fails with a sentence the model can use', async () => {
    const { cp, call } = session();
    cp.calendarFailure = new ControlPlaneError('calendar_not_connected', 409, 'calendar_not_connected');
    await expect(call('check_calendar', { start_date: '2026-11-25' })).rejects.toThrow(/No calendar is connected/);
  });

  it('book_meeting: a confirmed action with the appointment and the appointment outcome naming it', async () => {
    // Nothing else required: the booking alone reaches the goal.
    const { cp, call } = session(brief({ objectives: [], questions: [] }));
    await call('check_calendar', { start_date: '2026-11-25' });
    await expect(call('book_meeting', { starts_at: '2026-11-26T16:00:00Z', duration_minutes: 30, contact_confirmed: true })).rejects.toThrow(
      /not one of the free times/,
    );
    await call('book_meeting', { starts_at: '2026-11-25T15:30:00Z', duration_minutes: 30, contact_confirmed: true });
    const [action, outcome] = cp.events;
    expect(action).toMatchObject({
      type: 'conversation_action',
      kind: 'book_meeting',
      arguments: { outcome: 'booked', appointment: { starts_at: '2026-11-25T15:30:00Z', duration_minutes: 30 }, caller_confirmed: true },
      action_confirmation: { kind: 'read_back', response: 'confirmed' },
    });
    expect(outcome).toMatchObject({
      type: 'outcome',
      outcome: {
        outcome_type: 'appointment',
        goal_reached: true,
        status: 'booked',
        starts_at: '2026-11-25T15:30:00Z',
        duration_minutes: 30,
        action_id: (action as { action_id: string }).action_id,
      },
    });
  });

  it("book_meeting refuses without the contact's yes, or in the past", async () => {
    const { cp, call } = session();
    await expect(call('book_meeting', { starts_at: '2026-11-25T15:30:00Z', duration_minutes: 30, contact_confirmed: false })).rejects.toThrow(ToolError);
    await expect(call('book_meeting', { starts_at: '2026-11-20T15:30:00Z', duration_minutes: 30, contact_confirmed: true })).rejects.toThrow(/already passed/);
    expect(cp.events).toEqual([]);
  });

  it('an outcome of another type than the pinned one is reported as none, and none never replaces a typed outcome', async () => {
    const other = session(brief({ outcome_type: 'survey_response', objectives: [], questions: [] }));
    await other.call('book_meeting', { starts_at: '2026-11-25T15:30:00Z', duration_minutes: 30, contact_confirmed: true });
    expect(other.cp.events[1]).toMatchObject({ type: 'outcome', outcome: { outcome_type: 'none', goal_reached: true } });

    const { cp, call } = session();
    await call('book_meeting', { starts_at: '2026-11-25T15:30:00Z', duration_minutes: 30, contact_confirmed: true });
    await call('record_qualification', { answers: [{ question_id: 'budget', value: '10k' }], qualified: true });
    expect(cp.events.filter((e) => e.type === 'outcome').map((e) => (e as { outcome: { outcome_type: string } }).outcome.outcome_type)).toEqual([
      'appointment',
    ]);
    expect(aggregatesOf(cp.events).outcome).toMatchObject({ outcome_type: 'appointment', status: 'booked' });
  });

  it('send_sms: an action with the body; a refusal by the route is a could-not-send', async () => {
    const { cp, call } = session();
    expect(await call('send_sms', { body: 'Your meeting is confirmed for Wednesday at 10am.' })).toEqual({ status: 'sending' });
    expect(cp.events[0]).toMatchObject({
      type: 'conversation_action',
      kind: 'send_sms',
      arguments: { body: 'Your meeting is confirmed for Wednesday at 10am.' },
    });
    cp.postFailure = new ControlPlaneError('tool_not_granted', 422);
    await expect(call('send_sms', { body: 'Hello again' })).rejects.toThrow('The text message could not be sent');
  });

  it('record_optout: the opt-out on its own, then the action; the call ends and later tools are refused', async () => {
    const { cp, call, ends } = session();
    await call('record_optout', { reason: 'wrong_person', said: 'Wrong number, stop calling' });
    expect(cp.batches[0]).toEqual([expect.objectContaining({ type: 'opt_out', reason: 'wrong_person', text: 'Wrong number, stop calling' })]);
    expect(cp.batches[1]).toEqual([expect.objectContaining({ type: 'conversation_action', kind: 'record_optout', arguments: { reason: 'wrong_person' } })]);
    expect(ends).toEqual([{ reason: 'opt_out' }]);
    await expect(call('take_message', { message: 'hi' })).rejects.toThrow(/already ending/);
    // Said twice, recorded once.
    await call('record_optout', {});
    expect(cp.batches).toHaveLength(2);
    expect(aggregatesOf(cp.events)).toMatchObject({ opted_out: true, opt_out: { reason: 'wrong_person' } });
  });

  it('record_optout still ends the call when the opt-out cannot be recorded', async () => {
    const { cp, call, ends } = session();
    cp.postFailure = new ControlPlaneError('unavailable', 503);
    await expect(call('record_optout', {})).rejects.toThrow(ToolError);
    expect(ends).toEqual([{ reason: 'opt_out' }]);
    // Not recorded, so a second try posts it (and no action went out without it).
    cp.postFailure = null;
    await call('record_optout', {});
    expect(cp.events.map((e) => e.type)).toEqual(['opt_out', 'conversation_action']);
  });

  it('transfer_to_human: the action names the rep by id; the call is handed to that rep; an unknown id is refused', async () => {
    const { cp, call, ends } = session();
    await expect(call('transfer_to_human', { rep_id: 'rep_mallory' })).rejects.toThrow(ToolError);
    expect(await call('transfer_to_human', { rep_id: 'rep_alice', reason: 'Wants pricing' })).toMatchObject({ status: 'transferring', to: 'Alice' });
    expect(cp.events).toEqual([
      expect.objectContaining({ type: 'conversation_action', kind: 'transfer_to_human', arguments: { rep_id: 'rep_alice', reason: 'Wants pricing' } }),
    ]);
    expect(ends).toEqual([{ reason: 'transfer_to_human', rep_id: 'rep_alice' }]);
    expect(receptionistEventFor('transfer_to_human')).toBe('receptionist.transfer_requested');
  });

  it('end_call: an action, then the session is asked to end', async () => {
    const { cp, call, ends } = session();
    await call('end_call', {});
    expect(cp.events).toEqual([expect.objectContaining({ type: 'conversation_action', kind: 'end_call', arguments: {} })]);
    expect(ends).toEqual([{ reason: 'end_call' }]);
  });

  const survey = () =>
    brief({
      use_case: 'survey',
      outcome_type: 'survey_response',
      objectives: [{ id: 'consent', description: 'Agree to take part', required: true }],
      questions: [
        { id: 'csat', prompt: 'How satisfied are you?', scoring: { scale: 'csat', points: 5, mapping: { 'very satisfied': 5, satisfied: 4, unsatisfied: 1 } } },
        { id: 'comment', prompt: 'Anything else?' },
      ],
    });

  it('record_survey_answer: responses by kind; complete only when every question is answered; the survey response builds complete', async () => {
    const { cp, call } = session(survey());
    expect(
      await call('record_survey_answer', {
        answers: [
          { question_id: 'consent', value: 'yes' },
          { question_id: 'csat', value: 'satisfied' },
        ],
      }),
    ).toEqual({ status: 'recorded', remaining: ['comment'] });
    await expect(call('record_survey_answer', { complete: true })).rejects.toThrow(/still to answer comment/);
    // Nothing new: nothing to post (the route takes no empty batch).
    expect(await call('record_survey_answer', {})).toEqual({ status: 'recorded', remaining: ['comment'] });
    await call('record_survey_answer', { answers: [{ question_id: 'comment', value: 'Quick service' }], complete: true });
    expect(
      cp.events.filter((e) => e.type === 'recorded_response').map((e) => [(e as { kind: string }).kind, (e as { question_id: string }).question_id]),
    ).toEqual([
      ['objective', 'consent'],
      ['question', 'csat'],
      ['question', 'comment'],
    ]);
    expect(cp.events.at(-1)).toMatchObject({
      type: 'outcome',
      outcome: {
        outcome_type: 'survey_response',
        goal_reached: true,
        complete: true,
        answers: { consent: 'yes', csat: 'satisfied', comment: 'Quick service' },
      },
    });
    const agg = aggregatesOf(cp.events);
    const built = buildSurveyResponse({
      questions: survey().questions,
      version: { use_case: 'survey', objectives: survey().objectives },
      event_count: agg.event_count,
      opted_out: agg.opted_out,
      recorded_responses: agg.recorded_responses,
      conversation_actions: agg.conversation_actions,
    });
    expect(built).toMatchObject({ completion_status: 'complete', score: 0.8, answers: { csat: { value: 'satisfied', score: 4 } } });
  });

  it('record_survey_answer declined: the survey response builds as declined', async () => {
    const { cp, call } = session(survey());
    expect(await call('record_survey_answer', { declined: true })).toEqual({ status: 'declined', remaining: [] });
    const agg = aggregatesOf(cp.events);
    expect(agg.outcome).toMatchObject({ outcome_type: 'survey_response', complete: false, goal_reached: false });
    const built = buildSurveyResponse({
      questions: survey().questions,
      version: { use_case: 'survey', objectives: survey().objectives },
      event_count: agg.event_count,
      opted_out: false,
      recorded_responses: agg.recorded_responses,
      conversation_actions: agg.conversation_actions,
    });
    expect(built?.completion_status).toBe('declined');
  });

  it('goal_reached is what was recorded: a booking before the required answers is not the goal, until they are recorded', async () => {
    const { cp, call } = session();
    await call('book_meeting', { starts_at: '2026-11-25T15:30:00Z', duration_minutes: 30, contact_confirmed: true });
    expect(aggregatesOf(cp.events).outcome).toMatchObject({ outcome_type: 'appointment', goal_reached: false });
    await call('record_qualification', { answers: [{ question_id: 'budget', value: '10k' }], qualified: true });
    expect(aggregatesOf(cp.events).outcome).toMatchObject({ outcome_type: 'appointment', goal_reached: false });
    await call('record_qualification', { answers: [{ question_id: 'qualify', value: 'Decision maker' }], qualified: true });
    expect(aggregatesOf(cp.events).outcome).toMatchObject({ outcome_type: 'appointment', status: 'booked', goal_reached: true });

    // Qualifying, with every item answered, is not an appointment booked.
    const q = session();
    await q.call('record_qualification', {
      answers: [
        { question_id: 'budget', value: '10k' },
        { question_id: 'qualify', value: 'Yes' },
      ],
      qualified: true,
    });
    expect(aggregatesOf(q.cp.events).outcome).toMatchObject({ outcome_type: 'none', goal_reached: false });
  });

  it('check_calendar without a connected calendar: book_meeting takes the time the contact agreed to', async () => {
    const { cp, call } = session(brief({ objectives: [], questions: [] }));
    cp.calendarFailure = new ControlPlaneError('calendar_not_connected', 409, 'calendar_not_connected');
    await expect(call('check_calendar', { start_date: '2026-11-25' })).rejects.toThrow(/book it with book_meeting/);
    await call('book_meeting', { starts_at: '2026-11-27T15:00:00Z', duration_minutes: 30, contact_confirmed: true });
    expect(aggregatesOf(cp.events).outcome).toMatchObject({ outcome_type: 'appointment', status: 'booked', goal_reached: true });
  });

  it('record_qualification: responses for known ids, arguments qualification.ts reads, a repeat amends the first', async () => {
    // Outcome type none: qualifying with every item answered is the goal.
    const { cp, call } = session(brief({ outcome_type: 'none' }));
    await call('record_qualification', {
      answers: [
        { question_id: 'budget', value: '10k' },
        { question_id: 'qualify', value: 'Decision maker' },
      ],
      qualified: false,
      summary: 'Budget too small',
    });
    await call('record_qualification', { answers: [{ question_id: 'budget', value: '50k' }], qualified: true });
    const actions = cp.events.filter((e) => e.type === 'conversation_action') as { action_id: string; arguments: Record<string, unknown> }[];
    expect(readQualification(actions[0]!.arguments)).toEqual({ answers: { budget: '10k', qualify: 'Decision maker' }, qualified: false, amends: null });
    expect(readQualification(actions[1]!.arguments)).toEqual({ answers: { budget: '50k' }, qualified: true, amends: actions[0]!.action_id });
    expect(cp.events.filter((e) => e.type === 'recorded_response').map((e) => (e as { kind: string }).kind)).toEqual(['question', 'objective', 'question']);
    expect(aggregatesOf(cp.events).outcome).toMatchObject({ outcome_type: 'none', goal_reached: true, summary: 'Qualified' });
  });

  it('confirm_shift / record_shift_response: read-back confirmation and the shift outcome', async () => {
    const staffing = () => brief({ use_case: 'staffing', outcome_type: 'shift_confirmation', objectives: [], questions: [] });
    const a = session(staffing());
    await a.call('confirm_shift', { shift_id: 'sh-42', contact_confirmed: true });
    expect(a.cp.events).toEqual([
      expect.objectContaining({
        kind: 'confirm_shift',
        arguments: { response: 'confirmed', shift_id: 'sh-42' },
        action_confirmation: expect.objectContaining({ response: 'confirmed' }),
      }),
      expect.objectContaining({
        type: 'outcome',
        outcome: { outcome_type: 'shift_confirmation', goal_reached: true, response: 'confirmed', shift_id: 'sh-42' },
      }),
    ]);
    const b = session(staffing());
    await b.call('record_shift_response', { response: 'tentative', note: 'Needs to check childcare' });
    expect(aggregatesOf(b.cp.events).outcome).toMatchObject({ outcome_type: 'shift_confirmation', goal_reached: false, response: 'tentative' });
  });

  it('take_message, open_ticket, update_lead, schedule_callback: actions with the validated arguments', async () => {
    const { cp, call } = session(brief({ direction: 'inbound', use_case: 'receptionist' }));
    await call('take_message', { message: 'Please call about the invoice', caller_name: 'Sam', callback_requested: true });
    await call('open_ticket', { subject: 'Broken login', details: 'Cannot sign in since Monday', priority: 'high' });
    await call('update_lead', { interest: 'interested', next_step: 'Send brochure' });
    await call('schedule_callback', { preferred_window: 'weekday mornings', reason: 'Pricing' });
    expect(cp.events.map((e) => [(e as { kind: string }).kind, (e as { arguments: unknown }).arguments])).toEqual([
      ['take_message', { message: 'Please call about the invoice', caller_name: 'Sam', callback_requested: true }],
      ['open_ticket', { subject: 'Broken login', details: 'Cannot sign in since Monday', priority: 'high' }],
      ['update_lead', { interest: 'interested', next_step: 'Send brochure' }],
      ['schedule_callback', { preferred_window: 'weekday mornings', reason: 'Pricing' }],
    ]);
    expect(['take_message', 'open_ticket', 'schedule_callback'].map(receptionistEventFor)).toEqual([
      'receptionist.message_taken',
      'receptionist.ticket_opened',
      'receptionist.callback_scheduled',
    ]);
    await expect(call('update_lead', {})).rejects.toThrow(/at least one/);
    await expect(call('schedule_callback', { preferred_time: '2026-11-01T09:00:00Z' })).rejects.toThrow(/already passed/);
  });
});

describe('refusals and failures', () => {
  it('bad arguments are refused by the schema and nothing is reported', async () => {
    const { cp, call } = session();
    const bad: [string, unknown][] = [
      ['take_message', { message: 'x'.repeat(601) }],
      ['take_message', { message: 'hi', contact_id: 'con_1' }],
      ['send_sms', { body: 'hi', to: '+15551234567' }],
      ['book_meeting', { starts_at: 'tomorrow', duration_minutes: 30, contact_confirmed: true }],
      ['check_calendar', { start_date: '2026-11-27', end_date: '2026-11-25' }],
      ['record_survey_answer', { answers: [{ question_id: 'not_a_question', value: 'x' }] }],
      ['end_call', 'bye'],
    ];
    for (const [name, args] of bad) await expect(call(name, args), name).rejects.toThrow(/Invalid arguments/);
    expect(cp.events).toEqual([]);
    expect(cp.queries).toEqual([]);
  });

  it('a failing control plane is an Error with a safe message and the cause kept', async () => {
    const { cp, call } = session();
    const cause = new ControlPlaneError('internal detail: table throttled', 503);
    cp.postFailure = cause;
    const err = (await call('take_message', { message: 'Call me' }).catch((e: unknown) => e)) as ToolError;
    expect(err).toBeInstanceOf(ToolError);
    expect(err.message).toBe('The message could not be recorded just now');
    expect(err.cause).toBe(cause);
  });

  it('a tool whose reply was already interrupted does not run', async () => {
    const { cp, tools } = session();
    const aborted = new AbortController();
    aborted.abort();
    await expect(tools.find((t) => t.name === 'end_call')!.execute({}, { signal: aborted.signal })).rejects.toThrow(/interrupted/);
    expect(cp.events).toEqual([]);
  });

  it('event ids come from the session ids: the same calls post the same events', async () => {
    const play = async () => {
      const s = session();
      await s.call('record_qualification', { answers: [{ question_id: 'budget', value: '10k' }], qualified: true });
      await s.call('book_meeting', { starts_at: '2026-11-25T15:30:00Z', duration_minutes: 30, contact_confirmed: true });
      return s.cp.batches;
    };
    const first = await play();
    expect(await play()).toEqual(first);
    const ids = first.flat().map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id.startsWith('s1-'))).toBe(true);
  });
});
