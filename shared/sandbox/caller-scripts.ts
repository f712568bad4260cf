/**
 * What the contact says on a sandbox call the real voice runtime holds (ConversationRelay),
 * pure: the sandbox carrier plays the CALLER's side, so instead of a fixed script it listens to
 * each agent reply as heard and answers it the way the test number's ConversationScript says
 * (shared/sandbox/scenarios.ts), or, on an inbound call, the way the caller's script says
 * (shared/sandbox/booking-script.ts: enquiry, booking).
 *
 *   - a reply that asks one of the call's items (the pinned version's objectives, then the
 *     call's questions, in order; matched by the prompt text the agent says) is answered:
 *     a question with scoring options → its first option (so scoring maps it), else
 *     "Sandbox answer to <id>"; per the script, all of them, all but the last ("I'd rather
 *     not say"), the first only (then "Sorry, I have to go." and the contact hangs up) or none;
 *   - opt-outs, wrong person, declines, "Are you a robot?", "Can I talk to a real person?"
 *     and the Spanish opt-out are the contact's first line after the welcome greeting;
 *   - an agent that carries on after an opt-out or a decline gets one more line, then the
 *     contact hangs up;
 *   - "press 1" → the key; "anything else?" → no; an offer ("would you like me to book…")
 *     → yes (no when the script does not reach its goal); another yes/no question (an
 *     identity gate, "shall we carry on?") → "Yes."; any other question → "Sandbox answer";
 *     a statement → listen (a silence after it: "Okay." once, then the contact hangs up).
 *     "The first only" counts every distinct question, items or not (a question asked again
 *     is answered again);
 *   - the `interrupts` number talks over the agent's first reply after its opening line:
 *     what it heard is the first half of the words received (Twilio reports what it had
 *     played), and it barges in answering that (half-heard) question.
 * Bounded: a contact says at most a fixed number of lines, then hangs up. No I/O, no clock.
 */
import type { InboundScript } from './booking-script.js';
import type { CallQuestionView, PinnedAgentView } from './conversation.js';
import type { ConversationScript } from './scenarios.js';

/** One thing the agent is expected to ask: an objective or a question of the call. */
export interface CallerItem {
  id: string;
  prompt: string;
  /** The question's scoring labels (its mapping keys), in order. */
  options: readonly string[];
}

/** The items in the order the agent asks them: the pinned version's objectives, then the call's questions. */
export const callerItems = (version: Pick<PinnedAgentView, 'objectives'>, questions: readonly CallQuestionView[]): CallerItem[] => [
  ...version.objectives.map((o) => ({ id: o.id, prompt: o.description, options: [] })),
  ...questions.map((q) => ({ id: q.id, prompt: q.prompt, options: Object.keys(q.scoring?.mapping ?? {}) })),
];

export type CallerSource = { kind: 'outbound'; script: ConversationScript; items: readonly CallerItem[] } | { kind: 'inbound'; name: InboundScript };

export interface CallerState {
  /** Lines the contact has said (key presses not counted). */
  lines: number;
  /** Items answered, and items the contact would not answer, by id. */
  answered: string[];
  refused: string[];
  /** The contact asked to stop (opt-out, decline) or has said its last line. */
  stage: 'talking' | 'opted_out' | 'declined' | 'closing';
  /** Silences in a row after a statement. */
  silences: number;
  interrupted: boolean;
}

export type CallerMove =
  | { kind: 'say'; text: string; lang: string }
  | { kind: 'press'; digit: string }
  /** Says `text` (when given), then hangs up (the caller closes the socket). */
  | { kind: 'hang_up'; text: string | null; lang: string }
  /** Waits for the agent: more of its reply, a new one, or `end`. */
  | { kind: 'listen' };

export type CallerCue =
  /** The welcome greeting was said (or the relay reconnected): the contact's opening line. */
  | { type: 'greeting' }
  /** An agent reply as heard (after an interrupt: only what was heard before it). */
  | { type: 'reply'; text: string; interrupted: boolean }
  /** The agent stayed silent after a statement. */
  | { type: 'silence' };

export interface Step {
  state: CallerState;
  move: CallerMove;
}

export const initialCallerState = (): CallerState => ({ lines: 0, answered: [], refused: [], stage: 'talking', silences: 0, interrupted: false });

/** Roughly how long saying `text` takes: 2.5 words a second, at least 0.6 s. */
export const speakMs = (text: string): number => Math.max(600, Math.round((words(text).length / 2.5) * 1000));

const words = (text: string) => text.split(/\s+/).filter(Boolean);

/** Lower case, accents and punctuation dropped, spaces collapsed: how the contact compares what it hears. */
export const normalise = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

export const LINES = {
  hello: 'Hello?',
  optOut: "Please don't call me again.",
  optOutSpanish: 'No me llames más.',
  wrongPerson: "You have the wrong person. Please don't call this number again.",
  declines: "I'm not interested in taking part, thanks.",
  robot: 'Hello? Are you a robot?',
  human: 'Can I talk to a real person?',
  packQuestion: 'Hi, what are your opening hours on Saturday?',
  packUnknown: 'Hi, do you sell gift cards?',
  refuse: "I'd rather not say.",
  mustGo: 'Sorry, I have to go.',
  stillOptedOut: 'I asked you not to call me.',
  stillDeclining: "I said I'm not interested. Goodbye.",
  nothingElse: "No, that's all. Thank you!",
  yes: 'Yes, please.',
  yesGate: 'Yes.',
  no: 'No, thank you.',
  unknownQuestion: 'Sandbox answer',
  okay: 'Okay.',
  goodbye: 'Goodbye.',
  enquiry: 'Hi, what are your opening hours on Saturday?',
  enquiryDone: "No, that's it. Thanks, bye.",
  booking: "Hi, I'd like to book an appointment, please.",
  bookingWhen: 'Tomorrow afternoon if possible, around three.',
  bookingYes: 'Yes, please book it.',
} as const;

/** The value the contact gives for an item: the first scoring label, so scoring has something to map. */
export const answerFor = (item: CallerItem): string => item.options[0] ?? `Sandbox answer to ${item.id}`;

/** A contact says at most this many lines (every item a few times over, and a little more), then hangs up. */
export const maxLines = (source: CallerSource): number => 6 + 3 * (source.kind === 'outbound' ? source.items.length : 4);

const langOf = (source: CallerSource) => (source.kind === 'outbound' ? source.script.language : 'en-US');

const ANYTHING_ELSE = /\banything else\b|\balgo mas\b/;
const OFFER =
  /\b(shall i|should i|would you like|do you want|does that work|does that suit|is that ok|is that okay|can i go ahead|may i book|can i book|would that work|confirm)\b/;
const ASKS_WHEN = /\b(what day|what time|which day|when would|when works|when is good|day and time)\b/;
const KEYS: Record<string, string> = { star: '*', pound: '#', hash: '#' };
const PRESS = /\bpress (\d|star|pound|hash)\b/;
/** A yes/no question (an identity gate, "shall we carry on?"): a cooperative contact says yes. */
const YES_NO = /^(am i|are you|is this|is it|is that|do you|does|did you|can you|could you|will you|have you|shall we|should we|can we|may i)\b/;

/** The item an agent reply asks: the one whose prompt it says (the latest in the call's order, when several). */
export function itemAsked(items: readonly CallerItem[], heard: string): CallerItem | undefined {
  const said = normalise(heard);
  return [...items].reverse().find((i) => normalise(i.prompt) && said.includes(normalise(i.prompt)));
}

/** After an interrupt only the start of the question was heard: the item whose prompt it starts, if any. */
function itemStarted(items: readonly CallerItem[], heard: string): CallerItem | undefined {
  const said = normalise(heard);
  return said ? items.find((i) => normalise(i.prompt).startsWith(said) || said.includes(normalise(i.prompt))) : undefined;
}

/** The question a reply ends with (its last sentence, when that ends with "?"), normalised; null for a statement. */
export function questionOf(reply: string): string | null {
  const last = /[^.?!]*\?\s*$/.exec(reply.trim());
  return last ? normalise(last[0]) || null : null;
}

const say = (state: CallerState, text: string, lang: string, over: Partial<CallerState> = {}): Step => ({
  state: { ...state, silences: 0, ...over, lines: state.lines + 1 },
  move: { kind: 'say', text, lang },
});
const hangUp = (state: CallerState, text: string | null, lang: string): Step => ({
  state: { ...state, stage: 'closing', lines: state.lines + (text ? 1 : 0) },
  move: { kind: 'hang_up', text, lang },
});
const listen = (state: CallerState): Step => ({ state, move: { kind: 'listen' } });

function opening(source: CallerSource, state: CallerState): Step {
  if (source.kind === 'inbound') return say(state, source.name === 'booking' ? LINES.booking : LINES.enquiry, 'en-US');
  const s = source.script;
  const lang = s.language;
  if (s.opt_out)
    return say(state, s.wrong_person ? LINES.wrongPerson : lang.startsWith('es') ? LINES.optOutSpanish : LINES.optOut, lang, { stage: 'opted_out' });
  if (s.declines) return say(state, LINES.declines, lang, { stage: 'declined' });
  if (s.asks === 'robot') return say(state, LINES.robot, lang);
  if (s.asks === 'human') return say(state, LINES.human, lang);
  if (s.asks === 'pack_question') return say(state, LINES.packQuestion, lang);
  if (s.asks === 'pack_unknown') return say(state, LINES.packUnknown, lang);
  return say(state, LINES.hello, lang);
}

/** Whether the script has the contact answer `item` (by its place among the items). */
function answers(script: ConversationScript, items: readonly CallerItem[], item: CallerItem): boolean {
  const index = items.indexOf(item);
  switch (script.answers) {
    case 'all':
      return true;
    case 'all_but_last':
      return index < items.length - 1;
    case 'first_only':
      return index === 0;
    case 'none':
      return false;
  }
}

function outboundReply(source: Extract<CallerSource, { kind: 'outbound' }>, state: CallerState, heard: string, interrupted: boolean): Step {
  const { script, items } = source;
  const lang = script.language;
  const said = normalise(heard);
  // Cut short, what was heard is the start of a question.
  const question = interrupted ? said || null : questionOf(heard);
  const item = interrupted ? itemStarted(items, heard) : itemAsked(items, heard);
  // An agent that carries on after being asked to stop: one more line, then the contact hangs up.
  if (state.stage === 'opted_out' || state.stage === 'declined') {
    if (!question && !item) return listen(state);
    return hangUp(state, state.stage === 'opted_out' ? LINES.stillOptedOut : LINES.stillDeclining, lang);
  }
  const press = PRESS.exec(said);
  if (press) return { state, move: { kind: 'press', digit: KEYS[press[1]!] ?? press[1]! } };
  if (!item && !question) return listen(state);
  if (ANYTHING_ELSE.test(said)) return say(state, LINES.nothingElse, lang, { stage: 'closing' });
  // What was asked, so a question asked again is answered again, not counted as a new one.
  const key = item?.id ?? question!;
  const answered = { answered: [...new Set([...state.answered, key])] };
  if (script.answers === 'first_only' && state.answered.length > 0 && !state.answered.includes(key)) return hangUp(state, LINES.mustGo, lang);
  if (item && !answers(script, items, item)) return say(state, LINES.refuse, lang, { refused: [...new Set([...state.refused, item.id])] });
  if (item) return say(state, answerFor(item), lang, answered);
  // An offer is taken only by a contact whose script reaches the goal; any other yes/no question is a yes.
  if (OFFER.test(question!)) return say(state, script.goal ? LINES.yes : LINES.no, lang, answered);
  if (YES_NO.test(question!)) return say(state, LINES.yesGate, lang, answered);
  return say(state, LINES.unknownQuestion, lang, answered);
}

function inboundReply(name: InboundScript, state: CallerState, heard: string): Step {
  const said = normalise(heard);
  const question = heard.trim().endsWith('?');
  // The enquiry caller got its answer: it thanks the agent and hangs up.
  if (name === 'enquiry') return hangUp(state, LINES.enquiryDone, 'en-US');
  if (ANYTHING_ELSE.test(said)) return say(state, LINES.nothingElse, 'en-US', { stage: 'closing' });
  if (question && OFFER.test(said)) return say(state, LINES.bookingYes, 'en-US');
  if (question && ASKS_WHEN.test(said)) return say(state, LINES.bookingWhen, 'en-US');
  if (question) return say(state, LINES.unknownQuestion, 'en-US');
  return listen(state);
}

/** The contact's next move on a cue. */
export function nextMove(source: CallerSource, state: CallerState, cue: CallerCue): Step {
  const lang = langOf(source);
  if (cue.type === 'greeting') return state.lines === 0 ? opening(source, state) : listen(state);
  if (state.lines >= maxLines(source)) return hangUp(state, LINES.mustGo, lang);
  if (cue.type === 'silence') {
    // Said its last line and the agent says nothing more: the contact hangs up.
    if (state.stage !== 'talking' || state.silences > 0) return hangUp(state, state.stage === 'talking' ? LINES.goodbye : null, lang);
    return say(state, LINES.okay, lang, { silences: state.silences + 1 });
  }
  return source.kind === 'outbound' ? outboundReply(source, state, cue.text, cue.interrupted) : inboundReply(source.name, state, cue.text);
}

/**
 * Whether the contact talks over the agent's reply now, given what of it was received so far:
 * only the `interrupts` number, once, on the first reply after its opening line. What it
 * heard is the first half of the words received (at least one), and how long that took.
 */
export function interruption(source: CallerSource, state: CallerState, received: string): { heard: string; durationMs: number } | null {
  if (source.kind !== 'outbound' || !source.script.interrupts || state.interrupted || state.lines !== 1) return null;
  const w = words(received);
  if (!w.length) return null;
  const heard = w.slice(0, Math.max(1, Math.ceil(w.length / 2))).join(' ');
  return { heard, durationMs: speakMs(heard) };
}

export const markInterrupted = (state: CallerState): CallerState => ({ ...state, interrupted: true });
