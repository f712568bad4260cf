/**
 * What the sandbox model says and does: a deterministic agent that follows the agent plan
 * (use case, objectives, the call's questions, granted tools) and nothing else. It is one
 * generator for the whole conversation, fed the contact's turns and the tools' outcomes;
 * the model replays it over the conversation so far to find its next step, so the same
 * conversation always gives the same reply. Only the plan and the contact's words are read,
 * and the contact's words are only ever matched against a few intents (yes / no, an answer
 * option, opt-out, a person, a call back): an instruction inside them changes nothing. Pure.
 */
import type { AgentPlan } from '../plan.js';
import { DONT_KNOW, type ReferencePassage } from '../reference.js';
import type { Facts } from './tool-args.js';

export interface ToolOutcome {
  ok: boolean;
  value: unknown;
  /** The call was not made (tool not granted, or no valid arguments). */
  skipped?: boolean;
}

export type ScriptStep = { say: string } | { call: string; facts: Facts } | { listen: true };
export type ScriptInput = string | ToolOutcome | undefined;
export type Script = Generator<ScriptStep, void, ScriptInput>;

export interface ScriptEnv {
  /** The tools the model was given this call (a granted tool must also be offered). */
  offered: ReadonlySet<string>;
  /** Today, for the calendar search (YYYY-MM-DD). */
  today: string;
  /** The version answers from a knowledge pack: what to say to a question of fact. */
  knowledge?: { answer(heard: string): string };
}

/** A question of fact: ends with "?" and asks what, when, how, whether… */
const ASKS_FACT =
  /\b(what|when|where|how|which|who|why|do you|does|did|is there|is it|are you|are there|can i|can you|could you|will you|have you|do i)\b[^?]*\?\s*$/i;

const contentWords = (text: string) =>
  new Set(
    (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter(
      (w) => !/^(the|and|you|your|are|what|when|how|for|our|with|this|that|does|can|there|have)$/.test(w),
    ),
  );

/**
 * The sandbox agent's answer from the retrieved passages (best first): the sentence of the
 * best passage that shares the most words with the question (the first on a tie), quoted as
 * written; DONT_KNOW when nothing was retrieved. Deterministic.
 */
export function answerFromPassages(passages: readonly ReferencePassage[], question: string): string {
  const best = passages[0];
  if (!best) return DONT_KNOW;
  const asked = contentWords(question);
  const sentences = best.text
    .match(/[^.!?]+(?:[.!?]+(?=\s|$)|$)/g)
    ?.map((s) => s.trim())
    .filter(Boolean) ?? [best.text];
  let pick = sentences[0]!;
  let score = -1;
  for (const s of sentences) {
    const shared = [...contentWords(s)].filter((w) => asked.has(w)).length;
    if (shared > score) [pick, score] = [s, shared];
  }
  return /[.!?]$/.test(pick) ? pick : `${pick}.`;
}

export const CLOSING = 'Thank you for your time. Goodbye.';
export const SORRY = "Sorry, I didn't catch that.";
const NOT_NOW = 'No problem. Thank you for your time. Goodbye.';
const SAVE_FAILED = "Sorry, I wasn't able to save that, but let's continue.";
const MEETING_LENGTH_MINUTES = 30;
const SEARCH_DAYS = 7;
/** A time proposed when there is no calendar: this many days ahead, at this hour (UTC). */
const REQUEST_DAYS_AHEAD = 2;
const REQUEST_HOUR_UTC = 15;

/** Yes/no questions for the objectives that gate a call, by objective id. */
export const GATE_QUESTIONS: Readonly<Record<string, string>> = {
  confirm_identity: 'Am I speaking with the right person?',
  identify_worker: 'Am I speaking with the worker assigned to this shift?',
  consent_to_survey: 'Do you have a few minutes for a short survey?',
  confirm_interest: 'Are you still interested in the role?',
};

export const PROMPTS = {
  book: 'Would you like me to book the first open time with our team?',
  /** No calendar to check: a time the contact agrees to goes to the team as a request. */
  request: (when: string) => `I can't see our calendar right now, so our team will confirm the time with you. Would you like me to request ${when}?`,
  bookInterview: 'Would you like me to book the first open interview time?',
  remind: "I'm calling to remind you about your upcoming appointment. Will you be able to make it?",
  rebook: 'Would you like me to book the first open time instead?',
  shift: 'Can you confirm that you will work this shift?',
  help: 'How can I help you today?',
  message: 'What message would you like me to pass on?',
  name: 'May I have your name?',
} as const;

const OPT_OUT = /\b(stop calling|don'?t call|do not call|remove me|take me off|unsubscribe|never call)\b/i;
const HUMAN =
  /\b((speak|talk)\s+(to|with)\s+(a|an|the|some|your)?\s*(real\s+)?(person|human|representative|agent|someone|manager|operator)|representative|operator|real person|a human)\b/i;
const CALLBACK = /\b(call (me )?back|callback|bad time|not a good time|busy right now)\b/i;
const MAYBE = /\b(maybe|not sure|possibly|might|perhaps|unsure|don'?t know)\b/i;
const NO = /\b(no|nope|nah|not|can'?t|cannot|won'?t|wrong|don'?t)\b|n't\b/i;
const YES = /\b(yes|yeah|yep|yup|sure|correct|right|absolutely|ok|okay|of course|definitely|certainly|speaking|that'?s me|i can|i will|i am|sounds good)\b/i;
/** The contact will not answer this question: nothing to record. */
const REFUSES = /\b(rather not|prefer not|not say|no comment|skip (that|this|it)|pass on that)\b/i;
/** The contact will not take part at all. */
const DECLINES = /\b(not interested|no interest|don'?t want to take part)\b/i;
const MESSAGE = /\b(message|leave a note|pass (it |this )?on)\b/i;
const BOOKING = /\b(book|appointment|schedule|visit|reserve|meeting)\b/i;

export type YesNo = 'yes' | 'no' | 'maybe' | 'unclear';

export function yesNo(text: string): YesNo {
  if (MAYBE.test(text)) return 'maybe';
  if (NO.test(text)) return 'no';
  if (YES.test(text)) return 'yes';
  return 'unclear';
}

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The answer option the contact's words name (the longest label heard, so "very satisfied"
 * beats "satisfied"; number words count for number labels; yes / no for yes / no labels), or
 * the words themselves for an open question; undefined when nothing can be mapped.
 */
export function mapAnswer(options: readonly string[] | undefined, text: string): string | undefined {
  const heard = text.trim();
  if (REFUSES.test(heard)) return undefined;
  if (!options?.length) return /[\p{L}\p{N}]/u.test(heard) ? heard : undefined;
  const words = heard.toLowerCase();
  const matches = options.filter((option) => {
    const label = option.toLowerCase().trim();
    if (!label) return false;
    if (new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(label)}($|[^\\p{L}\\p{N}])`, 'u').test(words)) return true;
    const n = Number(label);
    return Number.isInteger(n) && n >= 0 && n < NUMBER_WORDS.length && new RegExp(`\\b${NUMBER_WORDS[n]}\\b`).test(words);
  });
  if (matches.length) return matches.reduce((a, b) => (b.length > a.length ? b : a));
  const yn = yesNo(heard);
  if (yn === 'yes' || yn === 'no') return options.find((o) => o.toLowerCase().trim() === yn);
  return undefined;
}

/** The first bookable slot in a check_calendar result. */
export function firstSlot(value: unknown): Record<string, unknown> | undefined {
  const slots = value && typeof value === 'object' ? (value as { slots?: unknown }).slots : undefined;
  const first = Array.isArray(slots) ? slots[0] : undefined;
  return first && typeof first === 'object' && typeof (first as { starts_at?: unknown }).starts_at === 'string'
    ? (first as Record<string, unknown>)
    : undefined;
}

/** A slot's start as said aloud, in UTC (deterministic: no host time zone). */
// One formatter: toLocaleString builds a new Intl.DateTimeFormat on every call, and the script is replayed every turn.
const spokenTime = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', weekday: 'long', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit' });

export function speakTime(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return `${spokenTime.format(at)} UTC`;
}

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

function minutesBetween(slot: Record<string, unknown>): number {
  const ms = typeof slot.ends_at === 'string' && typeof slot.starts_at === 'string' ? Date.parse(slot.ends_at) - Date.parse(slot.starts_at) : Number.NaN;
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms / 60_000) : MEETING_LENGTH_MINUTES;
}

/** The contact's words as a short tool argument. */
const brief = (text: string, max: number) => text.trim().slice(0, max);

class Ended extends Error {}

type Sub<T> = Generator<ScriptStep, T, ScriptInput>;

/** The whole conversation, from the contact's first words to end_call. */
export function* conversation(plan: AgentPlan, env: ScriptEnv): Script {
  const can = (tool: string) => plan.tools.includes(tool) && env.offered.has(tool);

  function* call(name: string, facts: Facts): Sub<ToolOutcome> {
    if (!can(name)) return { ok: false, value: undefined, skipped: true };
    const outcome = yield { call: name, facts };
    return outcome && typeof outcome === 'object' ? outcome : { ok: false, value: undefined, skipped: true };
  }

  function* say(text: string): Sub<void> {
    yield { say: text };
  }

  function* end(line: string = CLOSING, reason = 'completed'): Sub<never> {
    yield* say(line);
    yield* call('end_call', { reason });
    throw new Ended();
  }

  function* listen(): Sub<string> {
    const input = yield { listen: true };
    return typeof input === 'string' ? input : '';
  }

  /** What the contact may ask at any point; true when handled and the question should be asked again. */
  function* interrupt(text: string): Sub<boolean> {
    if (OPT_OUT.test(text)) {
      yield* say("Understood. I'll make sure we don't call you again. Goodbye.");
      // Recording the opt-out ends the call after this reply (as a transfer does): no end_call.
      yield* call('record_optout', { reason: 'opt_out', said: brief(text, 300) });
      throw new Ended();
    }
    if (DECLINES.test(text)) {
      // A survey records the refusal, so the response reads declined rather than unanswered.
      if (can('record_survey_answer')) yield* call('record_survey_answer', { declined: true });
      yield* end(NOT_NOW, 'not_interested');
    }
    if (HUMAN.test(text)) {
      if (!can('transfer_to_human')) {
        yield* say("I'm sorry, I can't transfer this call, but I can help you here.");
        return true;
      }
      yield* say('Of course, let me transfer you to a person now.');
      const transfer = yield* call('transfer_to_human', { reason: 'The contact asked to speak to a person.' });
      if (transfer.ok) throw new Ended();
      yield* say("I'm sorry, I couldn't reach anyone right now.");
      return true;
    }
    if (CALLBACK.test(text) && can('schedule_callback')) {
      yield* say("Of course, we'll call you back at a better time.");
      const callback = yield* call('schedule_callback', { reason: 'The contact asked to be called back.', preferred_window: brief(text, 120) });
      if (!callback.ok) yield* say("I'm sorry, I couldn't schedule that, but someone from our team will be in touch.");
      yield* end(CLOSING, 'contact_busy');
    }
    if (env.knowledge && ASKS_FACT.test(text)) {
      yield* say(env.knowledge.answer(text));
      return true;
    }
    return false;
  }

  /** Says the question verbatim and returns the contact's answer (after any interruption). */
  function* ask(question: string): Sub<string> {
    for (;;) {
      yield* say(question);
      const heard = yield* listen();
      if (!(yield* interrupt(heard))) return heard;
    }
  }

  /** Asks, and once more when the answer cannot be mapped; undefined when it still cannot. */
  function* askMapped<T>(question: string, map: (heard: string) => T | undefined): Sub<{ value: T; heard: string } | undefined> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const heard = yield* ask(attempt ? `${SORRY} ${question}` : question);
      const value = map(heard);
      if (value !== undefined) return { value, heard };
    }
    return undefined;
  }

  const confirm = (question: string) =>
    askMapped(question, (heard) => {
      const v = yesNo(heard);
      return v === 'unclear' ? undefined : v;
    });

  /** Objectives recorded so far (a gate confirmed, or the work they name done). */
  const recordedObjectives = new Set<string>();

  /**
   * Records answers (questions or objectives) with the answer tool the call has; `complete`
   * closes a survey. Objectives are recorded too, so the goal can be seen to be reached.
   */
  function* record(answers: Record<string, string>, qualified: boolean, summary: string, complete = false): Sub<void> {
    if (!Object.keys(answers).length && !complete) return;
    const tool = can('record_survey_answer') ? 'record_survey_answer' : can('record_qualification') ? 'record_qualification' : null;
    if (!tool) return;
    const saved = yield* call(tool, tool === 'record_survey_answer' ? { answers, ...(complete ? { complete: true } : {}) } : { answers, qualified, summary });
    if (!saved.ok && !saved.skipped) yield* say(SAVE_FAILED);
    else if (saved.ok) for (const id of Object.keys(answers)) if (plan.objectives.some((o) => o.id === id)) recordedObjectives.add(id);
  }

  /** Whether every question of the call got an answer. */
  let allAnswered = plan.questions.length === 0;

  function* questions(): Sub<void> {
    const perAnswer = can('record_survey_answer');
    const answers: Record<string, string> = {};
    for (const q of plan.questions) {
      const got = yield* askMapped(q.prompt, (heard) => mapAnswer(q.options, heard));
      if (!got) continue;
      answers[q.id] = got.value;
      if (perAnswer) yield* record({ [q.id]: got.value }, false, '');
    }
    const answered = Object.keys(answers).length;
    allAnswered = answered === plan.questions.length;
    if (!perAnswer && answered) {
      yield* record(answers, allAnswered, allAnswered ? 'Answered every qualification question.' : 'Did not answer every qualification question.');
    }
  }

  /** The use case's work is done: the required objectives not yet recorded are (closing a survey). */
  function* objectivesDone(): Sub<void> {
    const done = Object.fromEntries(plan.objectives.filter((o) => o.required && !recordedObjectives.has(o.id)).map((o) => [o.id, 'Completed']));
    yield* record(done, true, 'Answered every qualification question and reached the goal.', can('record_survey_answer'));
  }

  function* book(): Sub<boolean> {
    if (!can('check_calendar') || !can('book_meeting')) {
      yield* say('Someone from our team will follow up to find a time.');
      return false;
    }
    const calendar = yield* call('check_calendar', {
      start_date: env.today,
      end_date: addDays(env.today, SEARCH_DAYS),
      duration_minutes: MEETING_LENGTH_MINUTES,
    });
    if (!calendar.ok) return yield* requestTime();
    const slot = firstSlot(calendar.value);
    if (!slot) {
      yield* say("I'm sorry, I don't see any open times right now. Someone from our team will follow up.");
      return false;
    }
    // The contact agreed to the first open time before it was looked up.
    const booked = yield* call('book_meeting', { ...slot, duration_minutes: minutesBetween(slot), contact_confirmed: true });
    yield* say(
      booked.ok
        ? `You're booked for ${speakTime(slot.starts_at as string)}.`
        : "I'm sorry, I wasn't able to book that time. Someone from our team will follow up.",
    );
    return booked.ok;
  }

  /** No calendar to look at (the tool said so): a time the contact agrees to is booked as a request. */
  function* requestTime(): Sub<boolean> {
    const startsAt = `${addDays(env.today, REQUEST_DAYS_AHEAD)}T${REQUEST_HOUR_UTC}:00:00.000Z`;
    const answer = yield* confirm(PROMPTS.request(speakTime(startsAt)));
    if (answer?.value !== 'yes') {
      if (answer) yield* say('No problem. Someone from our team will follow up to find a time.');
      return false;
    }
    const booked = yield* call('book_meeting', { starts_at: startsAt, duration_minutes: MEETING_LENGTH_MINUTES, contact_confirmed: true });
    yield* say(
      booked.ok
        ? `Thank you, I've requested ${speakTime(startsAt)}; our team will confirm it.`
        : "I'm sorry, I wasn't able to request that time. Someone from our team will follow up.",
    );
    return booked.ok;
  }

  function* offerBooking(question: string): Sub<boolean> {
    const answer = yield* confirm(question);
    return answer?.value === 'yes' ? yield* book() : false;
  }

  function* shift(): Sub<boolean> {
    const answer = yield* confirm(PROMPTS.shift);
    if (!answer) return false;
    if (answer.value === 'yes') {
      const done = yield* call('confirm_shift', { response: 'confirmed', contact_confirmed: true });
      yield* say(done.ok ? 'Thank you, your shift is confirmed.' : "Thank you. I couldn't record that just now, but our team will follow up.");
      return done.ok;
    }
    const response = answer.value === 'no' ? 'declined' : 'tentative';
    const done = yield* call('record_shift_response', { response, note: brief(answer.heard, 300) });
    yield* say(done.ok || done.skipped ? 'Thank you for letting us know.' : "Thank you. I couldn't record that just now, but our team will follow up.");
    return false;
  }

  function* takeMessage(): Sub<boolean> {
    const message = yield* ask(PROMPTS.message);
    const name = yield* ask(PROMPTS.name);
    const taken = yield* call('take_message', { message: brief(message, 600), caller_name: brief(name, 100), callback_requested: true });
    yield* say(taken.ok ? "Thank you, I'll pass your message on." : "I'm sorry, I couldn't save your message. Please try calling again later.");
    return taken.ok;
  }

  function* receptionist(first: string): Sub<boolean> {
    const intent = (heard: string) => (BOOKING.test(heard) ? 'booking' : MESSAGE.test(heard) ? 'message' : undefined);
    const need = intent(first) ?? (yield* askMapped(PROMPTS.help, intent))?.value;
    return need === 'booking' ? yield* book() : yield* takeMessage();
  }

  try {
    const first = yield* listen();
    yield* interrupt(first);
    for (const objective of plan.objectives) {
      const gate = GATE_QUESTIONS[objective.id];
      if (!gate) continue;
      const answer = yield* confirm(gate);
      if (answer?.value === 'no') yield* end(NOT_NOW, 'not_interested');
      // Recorded at once: the contact may not stay for the rest.
      if (answer?.value === 'yes') yield* record({ [objective.id]: brief(answer.heard, 300) || 'Yes' }, false, 'Confirmed; the rest is still to do.');
    }
    let reached: boolean;
    switch (plan.use_case) {
      case 'sdr':
      case 'recruiting':
        yield* questions();
        reached = (yield* offerBooking(plan.use_case === 'recruiting' ? PROMPTS.bookInterview : PROMPTS.book)) && allAnswered;
        break;
      case 'reminder': {
        yield* questions();
        const answer = yield* confirm(PROMPTS.remind);
        if (answer?.value === 'yes') yield* say('Great, we look forward to seeing you.');
        reached = (answer?.value === 'yes' || (!!answer && (yield* offerBooking(PROMPTS.rebook)))) && allAnswered;
        break;
      }
      case 'staffing':
        yield* questions();
        reached = (yield* shift()) && allAnswered;
        break;
      case 'receptionist':
        reached = yield* receptionist(first);
        break;
      default:
        yield* questions();
        reached = allAnswered;
    }
    if (reached) yield* objectivesDone();
    yield* end();
  } catch (err) {
    if (!(err instanceof Ended)) throw err;
  }
}
