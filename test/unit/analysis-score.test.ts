import { describe, expect, it } from 'vitest';
import { successEvaluation } from '../../shared/policy/analysis/evaluation.js';
import {
  ANALYSIS_RESULTS_SCHEMA_VERSION,
  type CallFacts,
  DISCLOSURE_LATEST_AGENT_TURN,
  LATENCY_TARGET_MS,
  OPTOUT_END_WITHIN_MS,
  percentile,
  type RubricInput,
  readStoredAnalysis,
  responseLatencies,
  type SuccessEvaluation,
  scoreCall,
  type TurnFact,
  toStoredAnalysis,
} from '../../shared/policy/analysis/index.js';
import { buildRubric } from '../../shared/policy/rubric.js';
import { conversationEvents, type SequencedEvent } from '../../shared/sandbox/conversation.js';
import { SCENARIOS, type ScenarioId } from '../../shared/sandbox/scenarios.js';

// ── fixtures ─────────────────────────────────────────────────────────────────────────────

const VERSION = 'agv_01JZZZZZZZZZZZZZZZZZZZZZZZ';
const OBJECTIVES = [
  { id: 'identify', description: 'Confirm you are speaking with the intended contact', required: true },
  { id: 'book', description: 'Book a meeting', required: true },
  { id: 'text', description: 'Offer a text with the details', required: false },
];
const RUBRIC: RubricInput = buildRubric(VERSION, OBJECTIVES);
const T0 = Date.parse('2026-11-24T15:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

type Line = readonly ['agent' | 'contact', string] | readonly ['agent' | 'contact', string, Partial<TurnFact> & { gap?: number }];

/** Turns of 2 s each; each starts `gap` ms (default 600) after the previous one ended. */
function talk(...lines: Line[]): TurnFact[] {
  let t = 0;
  return lines.map(([speaker, text, over]) => {
    const { gap = 600, ...rest } = over ?? {};
    const start = t === 0 && speaker === 'contact' ? 0 : t + gap;
    t = start + 2000;
    return { speaker, text, started_at: iso(start), ended_at: iso(start + 2000), ...rest };
  });
}

/** The end of the last turn, plus `ms`. */
const endOf = (turns: readonly TurnFact[], ms = 200) => (turns.length ? iso(Date.parse(turns.at(-1)!.ended_at) - T0 + ms) : null);

const GOAL_TURNS = talk(
  ['contact', 'Hello?'],
  ['agent', 'Hi, this is Ava, an AI assistant calling for Acme Dental.'],
  ['contact', 'Yes, this is Jane.'],
  ['agent', 'Could we book your cleaning for Thursday at 3pm?'],
  ['contact', 'Sure.'],
  ['agent', 'Booked. Goodbye!', { closing: true }],
);

/** A finished call that reached its goal cleanly: every dimension passes except pack_grounded (no pack). */
function goalCall(over: Partial<CallFacts> = {}): CallFacts {
  const turns = over.turns ?? GOAL_TURNS;
  return {
    direction: 'outbound',
    state: 'completed',
    disposition: 'completed_goal',
    answered_by: 'human',
    turns,
    disclosure: { turn_index: 1 },
    opt_out: null,
    ended_by: 'agent',
    ended_at: endOf(turns),
    outcome: { kind: 'appointment', payload: { outcome: 'booked' } },
    conversation_actions: [{ kind: 'book_meeting', confirmation: 'confirmed', objective_ids: ['book'] }],
    recorded_responses: [{ source: 'objective', id: 'identify' }],
    question_ids: [],
    knowledge_pack: null,
    grounding: null,
    ...over,
  };
}

/** A call with no conversation: nothing happened beyond the carrier. */
function silentCall(over: Partial<CallFacts>): CallFacts {
  return goalCall({
    answered_by: null,
    turns: [],
    disclosure: null,
    ended_by: 'carrier',
    outcome: null,
    conversation_actions: [],
    recorded_responses: [],
    ...over,
  });
}

const PACK = { id: 'kp_hours', version: 3 };
const unsupported = (text: string) => ({ turn_index: 3, text, passage_ids: ['kpd_x.p1'] });
const grounding = (turns: number, checked: number, bad: string[] = []) => ({
  turns_using_pack: turns,
  claims_checked: checked,
  unsupported: bad.map(unsupported),
});

const dims = (e: SuccessEvaluation) => e.dimensions;
const results = (e: SuccessEvaluation) => Object.fromEntries(Object.entries(e.dimensions).map(([k, v]) => [k, v.result]));

/** Every evaluation produced in this file is checked against the output schema and the floor invariants. */
const produced: { name: string; evaluation: SuccessEvaluation }[] = [];
function score(facts: CallFacts, rubric: RubricInput = RUBRIC, name = 'case'): SuccessEvaluation {
  const evaluation = scoreCall(facts, rubric);
  produced.push({ name, evaluation });
  return evaluation;
}

// ── the whole evaluation ─────────────────────────────────────────────────────────────────

describe('scoreCall: a clean call', () => {
  it('passes every dimension it can and pins the rubric version', () => {
    const e = score(goalCall());
    expect(e).toEqual({
      verdict: 'pass',
      rubric_version: VERSION,
      dimensions: {
        goal_completion: { result: 'pass', reason: 'All 2 required objectives and questions met; appointment outcome recorded' },
        disclosure_given: { result: 'pass', reason: 'Disclosure given in agent turn 1' },
        optout_honored: { result: 'pass', reason: 'No opt-out was requested' },
        pack_grounded: { result: 'not_applicable', reason: 'The agent version has no knowledge pack', claims_checked: 0 },
        latency: { result: 'pass', reason: `p95 response latency 600 ms over 3 responses (target ≤ ${LATENCY_TARGET_MS} ms)`, turns_measured: 3 },
      },
    });
    expect(successEvaluation.parse(e)).toEqual(e);
  });

  it('is a pure function: the same inputs score the same, and the facts are not changed', () => {
    const facts = goalCall();
    const copy = structuredClone(facts);
    expect(score(facts)).toEqual(score(facts));
    expect(facts).toEqual(copy);
  });
});

// ── no conversation ──────────────────────────────────────────────────────────────────────

describe('calls without a conversation: every dimension and the verdict are not_applicable', () => {
  it.each<[string, Partial<CallFacts>, string]>([
    ['no answer', { state: 'no_answer', disposition: 'no_answer' }, 'Never answered (no_answer): no conversation'],
    ['busy', { state: 'busy', disposition: 'busy' }, 'Never answered (busy): no conversation'],
    ['carrier failure', { state: 'failed', disposition: 'failed' }, 'Never answered (failed): no conversation'],
    ['dispatch unknown (reconciler)', { state: 'failed', disposition: 'failed' }, 'Never answered (failed): no conversation'],
    ['blocked by compliance', { state: 'disposed', disposition: 'blocked_by_policy', ended_by: null }, 'Never answered (blocked_by_policy): no conversation'],
    ['DNC hit', { state: 'disposed', disposition: 'dnc_hit', ended_by: null }, 'Never answered (dnc_hit): no conversation'],
    ['cancelled, no disposition yet', { state: 'disposed', disposition: null, ended_by: null }, 'Never answered (disposed): no conversation'],
    [
      'answering machine (voicemail drop played)',
      { state: 'machine', disposition: 'voicemail_machine', answered_by: 'machine', turns: talk(['agent', 'Hi, this is Acme Dental…']) },
      'Answered by a machine: no conversation',
    ],
    [
      'answered, but the agent never spoke',
      { answered_by: 'human', disposition: 'answered_incomplete', turns: talk(['contact', 'Hello? Hello?']), ended_by: 'contact' },
      'The agent never spoke: no conversation',
    ],
    [
      'answered, stream never connected',
      { answered_by: 'unknown', state: 'completed', disposition: 'answered_incomplete' },
      'The agent never spoke: no conversation',
    ],
  ])('%s', (name, over, reason) => {
    const e = score(silentCall(over), RUBRIC, name);
    expect(e.verdict).toBe('not_applicable');
    expect(e.dimensions).toEqual({
      goal_completion: { result: 'not_applicable', reason },
      disclosure_given: { result: 'not_applicable', reason },
      optout_honored: { result: 'not_applicable', reason },
      pack_grounded: { result: 'not_applicable', reason, claims_checked: 0 },
      latency: { result: 'not_applicable', reason, turns_measured: 0 },
    });
  });

  it('stray facts on a call nobody talked on change nothing (an opt-out from a machine, a pack, claims)', () => {
    const e = score(
      silentCall({
        answered_by: 'machine',
        state: 'machine',
        opt_out: { at: iso(0), turn_index: null, reason: 'do_not_call' },
        knowledge_pack: PACK,
        grounding: grounding(1, 1, ['x']),
      }),
    );
    expect(e.verdict).toBe('not_applicable');
    expect(new Set(Object.values(results(e)))).toEqual(new Set(['not_applicable']));
  });

  it('an inbound call the agent took is a conversation like any other', () => {
    const e = score(goalCall({ direction: 'inbound', disclosure: null }));
    expect(dims(e).disclosure_given.result).toBe('fail');
    expect(e.verdict).toBe('fail');
  });

  it('answered_by unknown (no machine detection) with the agent speaking is a conversation', () => {
    expect(score(goalCall({ answered_by: 'unknown' })).verdict).toBe('pass');
  });

  it('agent turns on a call whose answered_by was never recorded still make a conversation: the floors are judged', () => {
    const e = score(goalCall({ answered_by: null, disclosure: null }));
    expect(dims(e).disclosure_given.result).toBe('fail');
    expect(e.verdict).toBe('fail');
  });
});

// ── disclosure_given (floor) ─────────────────────────────────────────────────────────────

describe('disclosure_given', () => {
  const greetingFirst = talk(
    ['contact', 'Hello?'],
    ['agent', 'Hi, may I speak with Jane?'],
    ['contact', 'Speaking.'],
    ['agent', 'This is Ava, an AI assistant for Acme Dental.'],
    ['contact', 'OK.'],
    ['agent', 'Could we book Thursday?'],
    ['contact', 'Sure.'],
    ['agent', 'Done, goodbye.'],
  );

  it.each<[string, Partial<CallFacts>, 'pass' | 'fail', string]>([
    ['in the first agent turn', {}, 'pass', 'Disclosure given in agent turn 1'],
    [
      `in agent turn ${DISCLOSURE_LATEST_AGENT_TURN}, after a greeting`,
      { turns: greetingFirst, disclosure: { turn_index: 3 } },
      'pass',
      'Disclosure given in agent turn 2',
    ],
    [
      'attributed to the contact turn before the 2nd agent turn: counts as that agent turn',
      { turns: greetingFirst, disclosure: { turn_index: 2 } },
      'pass',
      'Disclosure given in agent turn 2',
    ],
    ['attributed to the contact turn that opens the call: the first agent turn', { disclosure: { turn_index: 0 } }, 'pass', 'Disclosure given in agent turn 1'],
    ['late: agent turn 3', { turns: greetingFirst, disclosure: { turn_index: 5 } }, 'fail', 'The disclosure came late: agent turn 3, due by turn 2'],
    ['never given', { disclosure: null }, 'fail', 'The agent never gave the disclosure'],
    ['reported against a turn the call does not have', { disclosure: { turn_index: 99 } }, 'fail', 'The reported disclosure matches no turn of this call'],
    ['reported against a negative index', { disclosure: { turn_index: -1 } }, 'fail', 'The reported disclosure matches no turn of this call'],
    ['reported against a fractional index', { disclosure: { turn_index: 1.5 } }, 'fail', 'The reported disclosure matches no turn of this call'],
    [
      'reported after the agent last spoke',
      { turns: talk(['contact', 'Hello?'], ['agent', 'Hi!'], ['contact', 'Bye.']), disclosure: { turn_index: 2 } },
      'fail',
      'The disclosure was reported after the agent last spoke',
    ],
  ])('%s → %s', (name, over, result, reason) => {
    const e = score(goalCall(over), RUBRIC, name);
    expect(dims(e).disclosure_given).toEqual({ result, reason });
    if (result === 'fail') expect(e.verdict).toBe('fail');
  });

  it('a missing disclosure fails the verdict even when the goal, latency and pack all pass', () => {
    const e = score(goalCall({ disclosure: null, knowledge_pack: PACK, grounding: grounding(1, 1) }));
    expect(results(e)).toEqual({ goal_completion: 'pass', disclosure_given: 'fail', optout_honored: 'pass', pack_grounded: 'pass', latency: 'pass' });
    expect(e.verdict).toBe('fail');
  });
});

// ── optout_honored (floor) ───────────────────────────────────────────────────────────────

describe('optout_honored', () => {
  const optOutAt = (turns: TurnFact[], i: number) => ({ at: turns[i]!.ended_at, turn_index: i, reason: 'do_not_call' as const });
  const base = (turns: TurnFact[], i: number, over: Partial<CallFacts> = {}) =>
    goalCall({
      turns,
      opt_out: optOutAt(turns, i),
      disposition: 'opt_out',
      outcome: null,
      conversation_actions: [],
      recorded_responses: [],
      ended_at: endOf(turns),
      ...over,
    });

  const endsAtOptOut = talk(['contact', 'Hello?'], ['agent', 'Hi, this is Ava for Acme Dental.'], ['contact', 'Stop calling me.']);
  const acknowledges = talk(
    ['contact', 'Hello?'],
    ['agent', 'Hi, this is Ava for Acme Dental.'],
    ['contact', 'Stop calling me.'],
    ['agent', 'Understood, you will not be called again. Goodbye.', { closing: true }],
  );
  const acknowledgesUnflagged = talk(
    ['contact', 'Hello?'],
    ['agent', 'Hi, this is Ava for Acme Dental.'],
    ['contact', 'Stop calling me.'],
    ['agent', 'Understood. Goodbye.'],
  );
  const carriesOn = talk(
    ['contact', 'Hello?'],
    ['agent', 'Hi, this is Ava for Acme Dental.'],
    ['contact', 'Stop calling me.'],
    ['agent', 'Could we book Thursday?'],
    ['contact', 'I asked you not to call me.'],
  );
  const twoTurns = talk(
    ['contact', 'Hello?'],
    ['agent', 'Hi, this is Ava for Acme Dental.'],
    ['contact', 'Stop calling me.'],
    ['agent', 'Are you sure? We have a great offer.'],
    ['contact', 'Yes.'],
    ['agent', 'OK, goodbye.', { closing: true }],
  );
  const contactKeepsTalking = talk(
    ['contact', 'Hello?'],
    ['agent', 'Hi, this is Ava for Acme Dental.'],
    ['contact', 'Stop calling me.'],
    ['contact', 'Seriously, this is the third time.'],
    ['agent', 'I am sorry. You will not be called again. Goodbye.', { closing: true }],
  );

  it.each<[string, CallFacts, 'pass' | 'fail', string]>([
    ['no opt-out in a conversation', goalCall(), 'pass', 'No opt-out was requested'],
    ['the call ends at the opt-out (no agent turn after it)', base(endsAtOptOut, 2, { ended_by: 'contact' }), 'pass', 'The call ended at the opt-out'],
    [
      'one closing acknowledgement (flagged by the runtime)',
      base(acknowledges, 2, { ended_by: 'contact' }),
      'pass',
      'The agent acknowledged the opt-out and ended the call',
    ],
    [
      'one closing acknowledgement (last turn, the agent hung up)',
      base(acknowledgesUnflagged, 2, { ended_by: 'agent' }),
      'pass',
      'The agent acknowledged the opt-out and ended the call',
    ],
    [
      'contact keeps talking, then one closing acknowledgement',
      base(contactKeepsTalking, 2, { ended_by: 'agent' }),
      'pass',
      'The agent acknowledged the opt-out and ended the call',
    ],
    [
      'one unflagged last turn but the contact hung up: not shown to be closing',
      base(acknowledgesUnflagged, 2, { ended_by: 'contact' }),
      'fail',
      'The agent carried on after the opt-out instead of closing the call',
    ],
    [
      'the agent carries on and the contact hangs up',
      base(carriesOn, 2, { ended_by: 'contact' }),
      'fail',
      'The agent carried on after the opt-out instead of closing the call',
    ],
    [
      'two agent turns after, even if the last one closes',
      base(twoTurns, 2, { ended_by: 'agent' }),
      'fail',
      'The agent kept talking after the opt-out: 2 turns (allowed: 1 closing acknowledgement)',
    ],
    [
      `a closing acknowledgement but the call ends ${OPTOUT_END_WITHIN_MS / 1000} s + 1 ms later`,
      base(acknowledges, 2, { ended_at: iso(Date.parse(acknowledges[2]!.ended_at) - T0 + OPTOUT_END_WITHIN_MS + 1) }),
      'fail',
      'The call went on 30.001 s after the opt-out (allowed: 30 s)',
    ],
    [
      `a closing acknowledgement and the call ends exactly ${OPTOUT_END_WITHIN_MS / 1000} s later`,
      base(acknowledges, 2, { ended_at: iso(Date.parse(acknowledges[2]!.ended_at) - T0 + OPTOUT_END_WITHIN_MS) }),
      'pass',
      'The agent acknowledged the opt-out and ended the call',
    ],
    [
      'no agent turn after, but the line stays open 45 s',
      base(endsAtOptOut, 2, { ended_at: iso(Date.parse(endsAtOptOut[2]!.ended_at) - T0 + 45_000) }),
      'fail',
      'The call went on 45 s after the opt-out (allowed: 30 s)',
    ],
    [
      'the end instant unknown: judged on turns alone',
      base(acknowledges, 2, { ended_at: null }),
      'pass',
      'The agent acknowledged the opt-out and ended the call',
    ],
    [
      'placed by instant (no turn index): closing acknowledgement',
      base(acknowledges, 2, { opt_out: { at: acknowledges[2]!.ended_at, turn_index: null, reason: 'wrong_person' } }),
      'pass',
      'The agent acknowledged the opt-out and ended the call',
    ],
    [
      'placed by instant (no turn index): carries on',
      base(carriesOn, 2, { opt_out: { at: carriesOn[2]!.ended_at, turn_index: null, reason: 'do_not_call' } }),
      'fail',
      'The agent carried on after the opt-out instead of closing the call',
    ],
    [
      'an out-of-range turn index falls back to the instant',
      base(carriesOn, 2, { opt_out: { at: carriesOn[2]!.ended_at, turn_index: 42, reason: 'do_not_call' } }),
      'fail',
      'The agent carried on after the opt-out instead of closing the call',
    ],
    [
      'placed by instant: an agent turn with an unreadable start counts as after',
      base(
        acknowledges.map((t, i) => (i === 1 ? { ...t, started_at: 'garbled' } : t)),
        2,
        { opt_out: { at: acknowledges[2]!.ended_at, turn_index: null, reason: 'do_not_call' } },
      ),
      'fail',
      'The agent kept talking after the opt-out: 2 turns (allowed: 1 closing acknowledgement)',
    ],
    [
      'cannot be placed at all (no turn index, unreadable instant)',
      base(acknowledges, 2, { opt_out: { at: 'not-a-time', turn_index: null, reason: 'do_not_call' } }),
      'fail',
      'The opt-out cannot be placed in the conversation, so it cannot be shown to be honoured',
    ],
  ])('%s → %s', (name, facts, result, reason) => {
    const e = score(facts, RUBRIC, name);
    expect(dims(e).optout_honored).toEqual({ result, reason });
    if (result === 'fail') expect(e.verdict).toBe('fail');
  });

  it('an honoured opt-out before the goal: goal not_applicable, verdict not_applicable (not a failure of the agent)', () => {
    const e = score(base(acknowledges, 2, { ended_by: 'agent' }));
    expect(results(e)).toEqual({
      goal_completion: 'not_applicable',
      disclosure_given: 'pass',
      optout_honored: 'pass',
      pack_grounded: 'not_applicable',
      latency: 'pass',
    });
    expect(dims(e).goal_completion.reason).toBe('The contact opted out before the goal was reached');
    expect(e.verdict).toBe('not_applicable');
  });

  it('an ignored opt-out fails the verdict even when the goal was then reached', () => {
    const e = score(goalCall({ turns: twoTurns, opt_out: optOutAt(twoTurns, 2), ended_at: endOf(twoTurns) }));
    expect(dims(e).goal_completion.result).toBe('pass');
    expect(dims(e).optout_honored.result).toBe('fail');
    expect(e.verdict).toBe('fail');
  });

  it('an opt-out after the goal was reached, honoured: the goal still passes', () => {
    const turns = talk(
      ...GOAL_TURNS.slice(0, 5).map((t) => [t.speaker, t.text] as const),
      ['contact', 'And never call me again.'],
      ['agent', 'Understood. Goodbye.', { closing: true }],
    );
    const e = score(goalCall({ turns, opt_out: optOutAt(turns, 5), ended_at: endOf(turns) }));
    expect(results(e)).toMatchObject({ goal_completion: 'pass', optout_honored: 'pass' });
    expect(e.verdict).toBe('pass');
  });
});

// ── goal_completion ──────────────────────────────────────────────────────────────────────

describe('goal_completion', () => {
  const withQuestions = buildRubric(VERSION, OBJECTIVES);
  const allResponses = [
    { source: 'objective' as const, id: 'identify' },
    { source: 'objective' as const, id: 'book' },
  ];
  it.each<[string, Partial<CallFacts>, 'pass' | 'fail' | 'unscored' | 'not_applicable', string, SuccessEvaluation['verdict']]>([
    [
      'every required objective has a recorded response',
      { recorded_responses: allResponses, conversation_actions: [], outcome: null },
      'pass',
      'All 2 required objectives and questions met',
      'pass',
    ],
    ['one by a response, one by a confirmed action', {}, 'pass', 'All 2 required objectives and questions met; appointment outcome recorded', 'pass'],
    [
      'an action that needs no confirmation counts',
      { conversation_actions: [{ kind: 'book_meeting', confirmation: 'not_required', objective_ids: ['book'] }] },
      'pass',
      'All 2 required objectives and questions met; appointment outcome recorded',
      'pass',
    ],
    [
      'a declined action is not evidence',
      { conversation_actions: [{ kind: 'book_meeting', confirmation: 'declined', objective_ids: ['book'] }] },
      'fail',
      '1 of 2 required met; missing objective book',
      'partial',
    ],
    [
      'an action whose confirmation never came is not evidence',
      { conversation_actions: [{ kind: 'book_meeting', confirmation: 'missing', objective_ids: ['book'] }] },
      'fail',
      '1 of 2 required met; missing objective book',
      'partial',
    ],
    [
      'an action attributed to no objective is not evidence',
      { conversation_actions: [{ kind: 'book_meeting', confirmation: 'confirmed', objective_ids: [] }] },
      'fail',
      '1 of 2 required met; missing objective book',
      'partial',
    ],
    [
      'optional objectives are not required',
      { recorded_responses: [...allResponses], conversation_actions: [] },
      'pass',
      'All 2 required objectives and questions met; appointment outcome recorded',
      'pass',
    ],
    [
      'nothing met',
      { recorded_responses: [], conversation_actions: [], outcome: null, disposition: 'completed_no_goal' },
      'fail',
      '0 of 2 required met; missing objective identify, objective book',
      'fail',
    ],
    [
      'all met, but the agent recorded completed_no_goal',
      { recorded_responses: allResponses, disposition: 'completed_no_goal' },
      'fail',
      'Every required item was met, but the agent ended the call as completed_no_goal',
      'partial',
    ],
    [
      'all met, but the agent recorded answered_incomplete',
      { recorded_responses: allResponses, disposition: 'answered_incomplete' },
      'fail',
      'Every required item was met, but the agent ended the call as answered_incomplete',
      'partial',
    ],
    [
      'all met, no disposition recorded yet',
      { disposition: null },
      'pass',
      'All 2 required objectives and questions met; appointment outcome recorded',
      'pass',
    ],
    [
      'the agent claims completed_goal without evidence',
      { recorded_responses: [], conversation_actions: [], disposition: 'completed_goal' },
      'fail',
      '0 of 2 required met; missing objective identify, objective book',
      'fail',
    ],
    ['call questions are required too', { question_ids: ['nps'] }, 'fail', '2 of 3 required met; missing question nps', 'partial'],
    [
      'a call question answered',
      { question_ids: ['nps'], recorded_responses: [...allResponses, { source: 'question', id: 'nps' }] },
      'pass',
      'All 3 required objectives and questions met; appointment outcome recorded',
      'pass',
    ],
    [
      'a response under the wrong source does not count',
      {
        question_ids: ['identify'],
        recorded_responses: [
          { source: 'objective', id: 'identify' },
          { source: 'objective', id: 'book' },
        ],
      },
      'fail',
      '2 of 3 required met; missing question identify',
      'partial',
    ],
  ])('%s → %s', (name, over, result, reason, verdict) => {
    const e = score(goalCall(over), withQuestions, name);
    expect(dims(e).goal_completion).toEqual({ result, reason });
    expect(e.verdict).toBe(verdict);
  });

  it('no required objective and no question: unscored, and the verdict can still pass', () => {
    const e = score(goalCall(), buildRubric(VERSION, [{ id: 'chat', description: 'Chat', required: false }]));
    expect(dims(e).goal_completion).toEqual({ result: 'unscored', reason: 'No required objective or question to check' });
    expect(e.verdict).toBe('pass');
  });

  it('a rubric without goal_completion: unscored', () => {
    const r = { ...RUBRIC, dimensions: RUBRIC.dimensions.filter((d) => d.name !== 'goal_completion') };
    expect(dims(score(goalCall(), r)).goal_completion).toEqual({ result: 'unscored', reason: 'This rubric has no goal_completion dimension' });
  });

  it('a long list of missing items is summarised and the reason stays short', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ id: `objective_with_a_rather_long_identifier_${i}`, description: 'x', required: true }));
    const e = score(goalCall({ recorded_responses: [], conversation_actions: [] }), buildRubric(VERSION, many));
    expect(dims(e).goal_completion.reason).toMatch(/^0 of 40 required met; missing objective objective_with_a_rather_long_identifier_0, .+ and 37 more$/);
    expect(dims(e).goal_completion.reason.length).toBeLessThanOrEqual(300);
  });

  it('a reason longer than the bound is clipped (very long ids)', () => {
    const long = [{ id: 'x'.repeat(400), description: 'x', required: true }];
    const e = score(goalCall({ recorded_responses: [], conversation_actions: [] }), buildRubric(VERSION, long));
    expect(dims(e).goal_completion.reason).toHaveLength(300);
    expect(dims(e).goal_completion.reason.endsWith('…')).toBe(true);
  });
});

// ── pack_grounded ────────────────────────────────────────────────────────────────────────

describe('pack_grounded', () => {
  const bad = 'We are open until 9pm on weekdays.';
  it.each<[string, Partial<CallFacts>, 'pass' | 'fail' | 'unscored' | 'not_applicable', string, number, SuccessEvaluation['verdict']]>([
    ['no knowledge pack on the version', { grounding: grounding(1, 1, [bad]) }, 'not_applicable', 'The agent version has no knowledge pack', 0, 'pass'],
    [
      'a pack whose passages could not be read',
      { knowledge_pack: PACK, grounding: null },
      'unscored',
      'The passages of knowledge pack kp_hours v3 could not be read to check claims',
      0,
      'pass',
    ],
    ['a pack no agent turn used', { knowledge_pack: PACK, grounding: grounding(0, 0) }, 'not_applicable', 'No agent turn used the knowledge pack', 0, 'pass'],
    [
      'turns used the pack but stated nothing checkable',
      { knowledge_pack: PACK, grounding: grounding(2, 0) },
      'pass',
      'No checkable claim in the 2 turns that used knowledge pack kp_hours v3',
      0,
      'pass',
    ],
    [
      'every claim supported',
      { knowledge_pack: PACK, grounding: grounding(2, 3) },
      'pass',
      'All 3 claims supported by the cited passages of knowledge pack kp_hours v3',
      3,
      'pass',
    ],
  ])('%s → %s', (name, over, result, reason, claimsChecked, verdict) => {
    const e = score(goalCall(over), RUBRIC, name);
    expect(dims(e).pack_grounded).toEqual({ result, reason, claims_checked: claimsChecked });
    expect(e.verdict).toBe(verdict);
  });

  it('an unsupported claim fails the dimension, names the claim, and makes the verdict partial', () => {
    const e = score(goalCall({ knowledge_pack: PACK, grounding: grounding(2, 2, [bad]) }));
    expect(dims(e).pack_grounded).toEqual({
      result: 'fail',
      reason: '1 of 2 claims not supported by the cited passages of knowledge pack kp_hours v3',
      claims_checked: 2,
      unsupported_claims: [{ turn_index: 3, text: bad, passage_ids: ['kpd_x.p1'] }],
    });
    expect(e.verdict).toBe('partial');
  });

  it('a rubric without pack_grounded: unscored, claims_checked 0', () => {
    const r = { ...RUBRIC, dimensions: RUBRIC.dimensions.filter((d) => d.name !== 'pack_grounded') };
    expect(dims(score(goalCall({ knowledge_pack: PACK, grounding: grounding(1, 1, [bad]) }), r)).pack_grounded).toEqual({
      result: 'unscored',
      reason: 'This rubric has no pack_grounded dimension',
      claims_checked: 0,
    });
  });

  it('an ungrounded claim on a call whose goal failed with nothing met: fail', () => {
    expect(score(goalCall({ knowledge_pack: PACK, grounding: grounding(1, 1, [bad]), recorded_responses: [], conversation_actions: [] })).verdict).toBe('fail');
  });
});

// ── latency ──────────────────────────────────────────────────────────────────────────────

describe('latency', () => {
  /** A call whose agent responses come after these gaps (ms). */
  const withGaps = (gaps: number[]) => {
    const lines: Line[] = [['contact', 'Hello?']];
    gaps.forEach((gap, i) => {
      if (i > 0) lines.push(['contact', `Reply ${i}`]);
      lines.push(['agent', i === 0 ? 'Hi, this is Ava for Acme Dental.' : `Turn ${i}`, { gap }]);
    });
    return goalCall({ turns: talk(...lines), ended_at: null });
  };

  it.each<[string, number[], 'pass' | 'fail', number, number]>([
    ['one response exactly at the target', [LATENCY_TARGET_MS], 'pass', LATENCY_TARGET_MS, 1],
    ['one response 1 ms over the target', [LATENCY_TARGET_MS + 1], 'fail', LATENCY_TARGET_MS + 1, 1],
    ['all fast', [300, 400, 500, 600], 'pass', 600, 4],
    ['20 responses, one slow outlier: p95 is the 19th', [...Array.from({ length: 19 }, () => 800), 5000], 'pass', 800, 20],
    ['20 responses, two slow: p95 is slow', [...Array.from({ length: 18 }, () => 800), 5000, 5000], 'fail', 5000, 20],
    ['19 responses, one slow: with fewer than 20, p95 is the slowest', [...Array.from({ length: 18 }, () => 800), 5000], 'fail', 5000, 19],
    ['an overlap (the agent talks over the contact) measures 0', [-400], 'pass', 0, 1],
  ])('%s → %s', (name, gaps, result, p95, n) => {
    const e = score(withGaps(gaps), RUBRIC, name);
    expect(dims(e).latency).toEqual({
      result,
      reason: `p95 response latency ${p95} ms over ${n} responses (target ≤ ${LATENCY_TARGET_MS} ms)`,
      turns_measured: n,
    });
  });

  it('the runtime-reported latency wins over timestamps; a negative or non-finite one is ignored', () => {
    const turns = talk(
      ['contact', 'Hello?'],
      ['agent', 'Hi, Acme Dental here.', { latency_ms: 2000 }],
      ['contact', 'Yes?'],
      ['agent', 'Thursday?', { latency_ms: -5 }],
      ['contact', 'OK'],
      ['agent', 'Bye', { latency_ms: Number.NaN }],
    );
    expect(responseLatencies(turns)).toEqual([2000, 600, 600]);
    expect(dims(score(goalCall({ turns, ended_at: null }))).latency).toMatchObject({ result: 'fail', turns_measured: 3 });
  });

  it('agent turns that answer nobody (opening the call, or after another agent turn) are not measured', () => {
    const turns = talk(['agent', 'Hi, this is Ava for Acme Dental.'], ['agent', 'Is this Jane?'], ['contact', 'Yes.'], ['agent', 'Great.']);
    expect(responseLatencies(turns)).toEqual([600]);
  });

  it('unreadable timestamps are not measured', () => {
    const turns = talk(['contact', 'Hello?'], ['agent', 'Hi, Acme Dental.']).map((t) => ({ ...t, started_at: 'x' }));
    expect(responseLatencies(turns)).toEqual([]);
  });

  it('nothing to measure: unscored, and the verdict can still pass', () => {
    const turns = talk(['agent', 'Hi, this is Ava for Acme Dental. Goodbye.']);
    const e = score(goalCall({ turns, ended_at: null, disclosure: { turn_index: 0 } }));
    expect(dims(e).latency).toEqual({ result: 'unscored', reason: 'No agent response to measure', turns_measured: 0 });
    expect(e.verdict).toBe('pass');
  });

  it("the rubric's own target is used; a rubric without one uses the platform default", () => {
    const strict = { ...RUBRIC, dimensions: RUBRIC.dimensions.map((d) => (d.name === 'latency' ? { ...d, target_ms: 500 } : d)) };
    expect(dims(score(goalCall(), strict)).latency).toMatchObject({ result: 'fail', reason: 'p95 response latency 600 ms over 3 responses (target ≤ 500 ms)' });
    const untargeted = {
      ...RUBRIC,
      dimensions: RUBRIC.dimensions.map((d) => (d.name === 'latency' ? { name: d.name, floor: d.floor, applies: d.applies } : d)),
    };
    expect(dims(score(goalCall(), untargeted)).latency.reason).toContain(`target ≤ ${LATENCY_TARGET_MS} ms`);
  });

  it('a rubric without latency: unscored', () => {
    const r = { ...RUBRIC, dimensions: RUBRIC.dimensions.filter((d) => d.name !== 'latency') };
    expect(dims(score(goalCall(), r)).latency).toEqual({ result: 'unscored', reason: 'This rubric has no latency dimension', turns_measured: 0 });
  });

  it('slow responses on a call that reached its goal: partial', () => {
    expect(score(withGaps([3000, 3000])).verdict).toBe('partial');
  });

  it('percentile is nearest-rank', () => {
    expect(percentile([5], 95)).toBe(5);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([4, 3, 2, 1], 100)).toBe(4);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        95,
      ),
    ).toBe(95);
  });
});

// ── floors: never unscored, never waived ─────────────────────────────────────────────────

describe('the floors', () => {
  it('are scored even when the rubric omits them or marks them as not floors', () => {
    const noFloors = { ...RUBRIC, dimensions: RUBRIC.dimensions.filter((d) => !d.floor) };
    const demoted = { ...RUBRIC, dimensions: RUBRIC.dimensions.map((d) => ({ ...d, floor: false })) };
    for (const r of [noFloors, demoted, { rubric_version: VERSION, dimensions: [] }]) {
      const e = score(goalCall({ disclosure: null }), r);
      expect(dims(e).disclosure_given.result).toBe('fail');
      expect(dims(e).optout_honored.result).toBe('pass');
      expect(e.verdict).toBe('fail');
    }
  });

  it('over a grid of calls: floors are never unscored, the verdict is never pass with a failed floor, and every output fits the schema', () => {
    const turnsWithOptOut = talk(
      ['contact', 'Hello?'],
      ['agent', 'Hi, Acme Dental.'],
      ['contact', 'Stop calling.'],
      ['agent', 'Anyway, Thursday?'],
      ['contact', 'No.'],
    );
    const variants: Partial<CallFacts>[] = [
      {},
      { disclosure: null },
      { disclosure: { turn_index: 5 } },
      { turns: turnsWithOptOut, opt_out: { at: turnsWithOptOut[2]!.ended_at, turn_index: 2, reason: 'do_not_call' }, ended_by: 'contact' },
      { answered_by: 'machine' },
      { answered_by: null, turns: [] },
      { answered_by: 'unknown' },
      { recorded_responses: [], conversation_actions: [] },
      { knowledge_pack: PACK, grounding: grounding(1, 1, ['x']) },
    ];
    const rubrics: RubricInput[] = [RUBRIC, { rubric_version: VERSION, dimensions: [] }];
    let n = 0;
    for (const a of variants)
      for (const b of variants)
        for (const r of rubrics) {
          const e = score(goalCall({ ...a, ...b }), r, `grid ${n++}`);
          expect(successEvaluation.parse(e)).toEqual(e);
        }
    for (const { name, evaluation: e } of produced) {
      expect(e.dimensions.disclosure_given.result, name).not.toBe('unscored');
      expect(e.dimensions.optout_honored.result, name).not.toBe('unscored');
      if (e.dimensions.disclosure_given.result === 'fail' || e.dimensions.optout_honored.result === 'fail') expect(e.verdict, name).toBe('fail');
      if (e.verdict === 'pass') {
        expect(['pass', 'unscored'], name).toContain(e.dimensions.goal_completion.result);
        expect(
          Object.values(e.dimensions).map((d) => d.result),
          name,
        ).not.toContain('fail');
      }
      expect(() => successEvaluation.parse(e), name).not.toThrow();
    }
    expect(produced.length).toBeGreaterThan(150);
  });
});

// ── the sandbox test numbers, end to end through the pure pieces ─────────────────────────

describe('the sandbox scripts score as their test numbers promise', () => {
  const version = {
    use_case: 'survey',
    objectives: [
      { id: 'consent_to_survey', description: 'Ask whether the person has a few minutes', required: true },
      { id: 'ask_questions', description: 'Ask each question and record every answer', required: true },
      { id: 'thank', description: 'Thank the person', required: false },
    ],
    tools: ['record_survey_answer', 'record_optout', 'end_call'],
    disclosure_config: { business_name: 'Acme Research' },
  };
  const questions = [{ id: 'nps', prompt: 'How likely are you to recommend us?' }];
  const dispositionOf: Partial<Record<ScenarioId, string>> = {
    goal: 'completed_goal',
    no_goal: 'completed_no_goal',
    first_only: 'answered_incomplete',
    declines: 'completed_no_goal',
    do_not_call: 'opt_out',
    wrong_person: 'wrong_person_opt_out',
    no_disclosure: 'completed_goal',
    opt_out_ignored: 'opt_out',
    sms_carrier_error: 'completed_goal',
    // Played by the scripted runtime (a <Connect><Stream>), these go as the goal and the opt-out numbers.
    interrupts: 'completed_goal',
    asks_robot: 'completed_goal',
    asks_human: 'completed_goal',
    opt_out_es: 'opt_out',
    asks_pack: 'completed_goal',
    asks_beyond_pack: 'completed_goal',
    pack_hallucination: 'completed_goal',
  };

  /** What the analysis worker would gather from the runtime's events for this script (a sketch of its mapping). */
  function factsFrom(events: SequencedEvent[], disposition: string): CallFacts {
    const turns: TurnFact[] = [];
    let pendingDisclosure = false;
    let disclosure: CallFacts['disclosure'] = null;
    let optOut: CallFacts['opt_out'] = null;
    let endedBy: CallFacts['ended_by'] = null;
    const responses: CallFacts['recorded_responses'][number][] = [];
    const actions: CallFacts['conversation_actions'][number][] = [];
    let t = 0;
    for (const e of events) {
      if (e.type === 'turn') {
        const start = t + (turns.length ? 700 : 0);
        t = start + 1500;
        turns.push({ speaker: e.speaker === 'callee' ? 'contact' : 'agent', text: e.text, started_at: iso(start), ended_at: iso(t) });
        if (pendingDisclosure && e.speaker === 'agent') [disclosure, pendingDisclosure] = [{ turn_index: turns.length - 1 }, false];
      } else if (e.type === 'disclosure') pendingDisclosure = true;
      else if (e.type === 'response') responses.push({ source: e.source, id: e.id });
      else if (e.type === 'tool_call') actions.push({ kind: e.tool, confirmation: 'not_required', objective_ids: [] });
      else if (e.type === 'opt_out') optOut = { at: iso(t), turn_index: turns.length - 1, reason: e.reason };
      else if (e.type === 'hangup') endedBy = e.by === 'callee' ? 'contact' : 'agent';
    }
    return {
      direction: 'outbound',
      state: 'completed',
      disposition,
      answered_by: 'human',
      turns,
      disclosure,
      opt_out: optOut,
      ended_by: endedBy,
      ended_at: iso(t + 300),
      outcome: null,
      conversation_actions: actions,
      recorded_responses: responses,
      question_ids: questions.map((q) => q.id),
      knowledge_pack: null,
      grounding: null,
    };
  }

  const expected: Record<ScenarioId, { verdict: SuccessEvaluation['verdict']; goal: string; disclosure: string; optout: string }> = {
    goal: { verdict: 'pass', goal: 'pass', disclosure: 'pass', optout: 'pass' },
    sms_carrier_error: { verdict: 'pass', goal: 'pass', disclosure: 'pass', optout: 'pass' },
    no_goal: { verdict: 'partial', goal: 'fail', disclosure: 'pass', optout: 'pass' },
    first_only: { verdict: 'partial', goal: 'fail', disclosure: 'pass', optout: 'pass' },
    declines: { verdict: 'fail', goal: 'fail', disclosure: 'pass', optout: 'pass' },
    interrupts: { verdict: 'pass', goal: 'pass', disclosure: 'pass', optout: 'pass' },
    asks_robot: { verdict: 'pass', goal: 'pass', disclosure: 'pass', optout: 'pass' },
    asks_human: { verdict: 'pass', goal: 'pass', disclosure: 'pass', optout: 'pass' },
    asks_pack: { verdict: 'pass', goal: 'pass', disclosure: 'pass', optout: 'pass' },
    asks_beyond_pack: { verdict: 'pass', goal: 'pass', disclosure: 'pass', optout: 'pass' },
    // Without the pack's passages in this sketch, the invented answer is not checked (the e2e sandbox call checks it).
    pack_hallucination: { verdict: 'pass', goal: 'pass', disclosure: 'pass', optout: 'pass' },
    opt_out_es: { verdict: 'not_applicable', goal: 'not_applicable', disclosure: 'pass', optout: 'pass' },
    do_not_call: { verdict: 'not_applicable', goal: 'not_applicable', disclosure: 'pass', optout: 'pass' },
    wrong_person: { verdict: 'not_applicable', goal: 'not_applicable', disclosure: 'pass', optout: 'pass' },
    no_disclosure: { verdict: 'fail', goal: 'pass', disclosure: 'fail', optout: 'pass' },
    opt_out_ignored: { verdict: 'fail', goal: 'not_applicable', disclosure: 'pass', optout: 'fail' },
    busy: { verdict: 'not_applicable', goal: 'not_applicable', disclosure: 'not_applicable', optout: 'not_applicable' },
    no_answer: { verdict: 'not_applicable', goal: 'not_applicable', disclosure: 'not_applicable', optout: 'not_applicable' },
    machine: { verdict: 'not_applicable', goal: 'not_applicable', disclosure: 'not_applicable', optout: 'not_applicable' },
    carrier_failure: { verdict: 'not_applicable', goal: 'not_applicable', disclosure: 'not_applicable', optout: 'not_applicable' },
  };

  it.each(SCENARIOS.map((s) => [s.id, s] as const))('%s', (id, scenario) => {
    const facts = scenario.script
      ? factsFrom(conversationEvents(scenario.script, { version, questions, at: new Date(T0) }), dispositionOf[id]!)
      : silentCall({
          state: scenario.carrier === 'human' ? 'completed' : scenario.carrier,
          disposition: scenario.carrier === 'machine' ? 'voicemail_machine' : scenario.carrier,
          answered_by: scenario.carrier === 'machine' ? 'machine' : null,
        });
    const e = score(facts, buildRubric(VERSION, version.objectives), `sandbox ${id}`);
    const want = expected[id];
    expect({
      verdict: e.verdict,
      goal: e.dimensions.goal_completion.result,
      disclosure: e.dimensions.disclosure_given.result,
      optout: e.dimensions.optout_honored.result,
    }).toEqual(want);
  });
});

// ── the stored form ──────────────────────────────────────────────────────────────────────

describe('stored analysis', () => {
  const evaluation = scoreCall(goalCall(), RUBRIC);
  const stored = toStoredAnalysis(evaluation);

  it('carries the results schema version and reads back unchanged (also through JSON)', () => {
    expect(stored).toEqual({ results_schema_version: ANALYSIS_RESULTS_SCHEMA_VERSION, success_evaluation: evaluation });
    expect(readStoredAnalysis(stored)).toEqual(evaluation);
    expect(readStoredAnalysis(JSON.parse(JSON.stringify(stored)))).toEqual(evaluation);
  });

  it('a key added without a version bump is dropped on read, not shown', () => {
    const extra = { ...stored, success_evaluation: { ...evaluation, confidence: 0.9 } };
    expect(readStoredAnalysis(extra)).toEqual(evaluation);
  });

  const broken = (mutate: (e: Record<string, any>) => void) => {
    const e = structuredClone(evaluation) as Record<string, any>;
    mutate(e);
    return { results_schema_version: ANALYSIS_RESULTS_SCHEMA_VERSION, success_evaluation: e };
  };

  it.each<[string, unknown]>([
    ['a newer results schema version', { ...stored, results_schema_version: ANALYSIS_RESULTS_SCHEMA_VERSION + 1 }],
    ['version 0', { ...stored, results_schema_version: 0 }],
    ['the version as a string', { ...stored, results_schema_version: String(ANALYSIS_RESULTS_SCHEMA_VERSION) }],
    ['a fractional version', { ...stored, results_schema_version: 1.5 }],
    ['no version', { success_evaluation: evaluation }],
    ['no evaluation', { results_schema_version: ANALYSIS_RESULTS_SCHEMA_VERSION }],
    ['undefined (never scored)', undefined],
    ['null', null],
    ['a string', 'pass'],
    ['an array', [stored]],
    ['a floor stored as unscored', broken((e) => (e.dimensions.disclosure_given.result = 'unscored'))],
    ['an unknown verdict', broken((e) => (e.verdict = 'excellent'))],
    ['an unknown dimension result', broken((e) => (e.dimensions.latency.result = 'slow'))],
    ['a missing dimension', broken((e) => delete e.dimensions.latency)],
    ['pack_grounded without claims_checked', broken((e) => delete e.dimensions.pack_grounded.claims_checked)],
    ['latency with a negative turns_measured', broken((e) => (e.dimensions.latency.turns_measured = -1))],
    ['an empty reason', broken((e) => (e.dimensions.goal_completion.reason = ''))],
    ['no rubric_version', broken((e) => delete e.rubric_version)],
  ])('%s → null', (_name, value) => {
    expect(readStoredAnalysis(value)).toBeNull();
  });

  it('refuses to store an evaluation outside the schema (a scorer bug throws before anything is written)', () => {
    const bad = structuredClone(evaluation) as SuccessEvaluation;
    (bad.dimensions.optout_honored as { result: string }).result = 'unscored';
    expect(() => toStoredAnalysis(bad)).toThrow();
  });
});
