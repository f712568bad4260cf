/**
 * The sandbox carrier's test numbers (README "Sandbox test numbers"), like Stripe's test
 * cards: the subscriber part of the number called (its last seven digits, any area code)
 * decides how the carrier plays the call out and what the callee says. Pure data and pure
 * functions; the timeline worker plays the carrier part. The contact's side is played over
 * ConversationRelay against the real voice runtime (shared/sandbox/caller-scripts.ts says what
 * the contact says, shared/sandbox/relay-caller.ts says it). Two numbers need an agent that
 * misbehaves (no_disclosure 555-0140, opt_out_ignored 555-0141): a correct runtime cannot play
 * them, so they keep the scripted runtime (shared/sandbox/conversation.ts, posted by
 * shared/sandbox/runtime.ts) — see `needsScriptedAgent`.
 */

export type ScenarioId =
  | 'goal'
  | 'no_goal'
  | 'first_only'
  | 'declines'
  | 'interrupts'
  | 'asks_robot'
  | 'asks_human'
  | 'asks_pack'
  | 'asks_beyond_pack'
  | 'busy'
  | 'no_answer'
  | 'machine'
  | 'carrier_failure'
  | 'do_not_call'
  | 'wrong_person'
  | 'opt_out_es'
  | 'no_disclosure'
  | 'opt_out_ignored'
  | 'pack_hallucination'
  | 'sms_carrier_error';

/** What the callee says and does, and what the (scripted) agent does wrong, if anything. */
export interface ConversationScript {
  /** Which of the agent's objectives and questions get an answer. */
  answers: 'all' | 'all_but_last' | 'first_only' | 'none';
  /** The outcome the pinned version aims for is recorded as reached. */
  goal: boolean;
  /** The callee refuses to take part before any question. */
  declines: boolean;
  /** The callee asks not to be called again. */
  opt_out: boolean;
  /** The callee is not the person sought (and asks not to be called). */
  wrong_person: boolean;
  /** The callee hangs up (after the answers given); otherwise the agent closes the call. */
  callee_hangs_up: boolean;
  /** The callee talks over the agent's first question (ConversationRelay `interrupt`). */
  interrupts: boolean;
  /**
   * What the callee asks first: whether the agent is a robot, for a real person, a question a
   * clinic's knowledge pack answers (`pack_question`: Saturday opening hours) or one it does
   * not (`pack_unknown`: gift cards).
   */
  asks: 'robot' | 'human' | 'pack_question' | 'pack_unknown' | null;
  /** The language the callee speaks (BCP 47), e.g. es-ES for the Spanish opt-out. */
  language: string;
  agent_skips_disclosure: boolean;
  agent_ignores_opt_out: boolean;
  /** The (scripted) agent answers the pack question with a price and hours no passage holds, citing the best passage. */
  agent_invents_answer: boolean;
}

/** How the carrier leg ends, before anyone speaks. */
export type CarrierOutcome = 'human' | 'machine' | 'busy' | 'no_answer' | 'failed';

export interface Scenario {
  id: ScenarioId;
  /** Subscriber parts (NXX-XXXX as 7 digits) that select it; the default scenario lists its own range. */
  subscribers: readonly string[];
  summary: string;
  carrier: CarrierOutcome;
  /** Timeline steps between answer and hang-up (talk time), when answered. */
  talkSteps: number;
  /** CallDuration the carrier reports for an answered call that runs its course (nominal seconds, not scaled). */
  durationSeconds: number;
  /** null: nobody talks (the call is never answered by a person). */
  script: ConversationScript | null;
  /** How an SMS to the number ends. */
  message: MessageFate;
}

export type MessageFate = { status: 'delivered' } | { status: 'failed' | 'undelivered'; errorCode: number; errorMessage: string };

const DELIVERED: MessageFate = { status: 'delivered' };

const script = (over: Partial<ConversationScript>): ConversationScript => ({
  answers: 'all',
  goal: true,
  declines: false,
  opt_out: false,
  wrong_person: false,
  callee_hangs_up: false,
  interrupts: false,
  asks: null,
  language: 'en-US',
  agent_skips_disclosure: false,
  agent_ignores_opt_out: false,
  agent_invents_answer: false,
  ...over,
});

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `555${String(from + i).padStart(4, '0')}`);

const human = (
  id: ScenarioId,
  subscriber: string | readonly string[],
  summary: string,
  talkSteps: number,
  durationSeconds: number,
  s: ConversationScript,
): Scenario => ({
  id,
  subscribers: typeof subscriber === 'string' ? [subscriber] : subscriber,
  summary,
  carrier: 'human',
  talkSteps,
  durationSeconds,
  script: s,
  message: DELIVERED,
});

const unanswered = (id: ScenarioId, subscriber: string, summary: string, carrier: CarrierOutcome, message: MessageFate = DELIVERED): Scenario => ({
  id,
  subscribers: [subscriber],
  summary,
  carrier,
  talkSteps: carrier === 'machine' ? 2 : 0,
  durationSeconds: carrier === 'machine' ? 22 : 0,
  script: null,
  message,
});

/** The table, in README order. */
export const SCENARIOS: readonly Scenario[] = [
  human('goal', range(100, 109), 'Answers; the conversation reaches its goal (also every number not listed here)', 8, 95, script({})),
  human(
    'no_goal',
    '5550110',
    'Answers; talks but the goal is not reached (the last question goes unanswered, the outcome is recorded as not reached)',
    7,
    80,
    script({ answers: 'all_but_last', goal: false }),
  ),
  human(
    'first_only',
    '5550111',
    'Answers the first question only, then hangs up',
    3,
    25,
    script({ answers: 'first_only', goal: false, callee_hangs_up: true }),
  ),
  human('declines', '5550112', 'Answers and declines to take part', 2, 15, script({ answers: 'none', goal: false, declines: true })),
  human(
    'interrupts',
    '5550113',
    "Answers and talks over the agent's first question, then answers everything; the goal is reached",
    8,
    95,
    script({ interrupts: true }),
  ),
  human(
    'asks_robot',
    '5550114',
    'Asks "Are you a robot?"; the agent says it is an automated assistant, carries on, and the goal is reached',
    8,
    100,
    script({ asks: 'robot' }),
  ),
  human(
    'asks_human',
    '5550115',
    'Asks "Can I talk to a real person?"; an agent granted transfer_to_human transfers the call to a rep, otherwise it carries on and the goal is reached',
    4,
    40,
    script({ asks: 'human' }),
  ),
  human(
    'asks_pack',
    '5550116',
    'Asks "What are your opening hours on Saturday?"; an agent with a knowledge pack answers from its passages (pack_grounded pass when the pack holds the hours), then the goal is reached',
    8,
    100,
    script({ asks: 'pack_question' }),
  ),
  human(
    'asks_beyond_pack',
    '5550117',
    'Asks "Do you sell gift cards?", which the pack does not cover; the agent says it does not know and offers a follow-up, then the goal is reached',
    8,
    100,
    script({ asks: 'pack_unknown' }),
  ),
  unanswered('busy', '5550120', 'Busy', 'busy'),
  unanswered('no_answer', '5550121', 'Rings out: no answer (an SMS is undelivered, 30003)', 'no_answer', {
    status: 'undelivered',
    errorCode: 30003,
    errorMessage: 'Unreachable destination handset',
  }),
  unanswered('machine', '5550122', 'An answering machine picks up (AnsweredBy machine_start / machine_end_beep when machine detection is on)', 'machine'),
  unanswered('carrier_failure', '5550123', 'The carrier fails the call (SIP 503); an SMS fails (30008)', 'failed', {
    status: 'failed',
    errorCode: 30008,
    errorMessage: 'Unknown error',
  }),
  human(
    'do_not_call',
    '5550130',
    'Answers and asks not to be called again; the agent honours it',
    3,
    20,
    script({ answers: 'none', goal: false, opt_out: true }),
  ),
  human(
    'wrong_person',
    '5550131',
    'Wrong person: says so and asks not to be called; the agent honours it',
    2,
    12,
    script({ answers: 'none', goal: false, opt_out: true, wrong_person: true }),
  ),
  human(
    'opt_out_es',
    '5550132',
    'Answers and opts out in Spanish ("No me llames más"); the agent honours it',
    3,
    20,
    script({ answers: 'none', goal: false, opt_out: true, language: 'es-ES' }),
  ),
  human('no_disclosure', '5550140', 'Answers and the goal is reached, but the agent omits its disclosure', 8, 90, script({ agent_skips_disclosure: true })),
  human(
    'opt_out_ignored',
    '5550141',
    'Answers and opts out; the agent carries on regardless, and the callee hangs up',
    5,
    60,
    script({ answers: 'none', goal: false, opt_out: true, agent_ignores_opt_out: true, callee_hangs_up: true }),
  ),
  human(
    'pack_hallucination',
    '5550142',
    'Asks the Saturday hours; the agent invents a price and hours no passage holds, citing the best passage (pack_grounded fail), then the goal is reached',
    9,
    100,
    script({ asks: 'pack_question', agent_invents_answer: true }),
  ),
  {
    ...human('sms_carrier_error', '5550160', 'Calls go as 555-0100; an SMS is refused downstream with a carrier error (failed, 30007)', 8, 95, script({})),
    message: { status: 'failed', errorCode: 30007, errorMessage: 'Message filtered by the carrier' },
  },
];

const BY_SUBSCRIBER = new Map(SCENARIOS.flatMap((s) => s.subscribers.map((sub) => [sub, s] as const)));
const DEFAULT = SCENARIOS[0]!;

/** The last seven digits of an E.164 number (NANP's exchange + line; any country's tail). */
export const subscriberPart = (e164: string): string => e164.replace(/\D/g, '').slice(-7);

/** The scenario a call or message to `e164` plays: by subscriber part, else answers and reaches the goal. */
export const scenarioFor = (e164: string): Scenario => BY_SUBSCRIBER.get(subscriberPart(e164)) ?? DEFAULT;

export const scenarioById = (id: ScenarioId): Scenario => SCENARIOS.find((s) => s.id === id)!;

/**
 * A scenario whose agent must misbehave (skip its disclosure, ignore an opt-out): the real
 * runtime never does, so the sandbox plays the agent's side itself (shared/sandbox/runtime.ts).
 */
export const needsScriptedAgent = (scenario: Scenario): boolean =>
  !!scenario.script && (scenario.script.agent_skips_disclosure || scenario.script.agent_ignores_opt_out || scenario.script.agent_invents_answer);
