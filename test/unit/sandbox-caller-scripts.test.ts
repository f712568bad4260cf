import { describe, expect, it } from 'vitest';
import {
  answerFor,
  type CallerItem,
  type CallerMove,
  type CallerSource,
  type CallerState,
  callerItems,
  initialCallerState,
  interruption,
  itemAsked,
  LINES,
  markInterrupted,
  maxLines,
  nextMove,
  normalise,
  questionOf,
  speakMs,
} from '../../shared/sandbox/caller-scripts.js';
import { SCENARIOS, type ScenarioId, scenarioById } from '../../shared/sandbox/scenarios.js';

const ITEMS: CallerItem[] = [
  { id: 'confirm_identity', prompt: 'Confirm you are speaking with the intended contact', options: [] },
  { id: 'roof_age', prompt: 'How old is your roof?', options: [] },
  { id: 'csat', prompt: 'How satisfied are you?', options: ['very', 'somewhat'] },
];
const outbound = (id: ScenarioId, items: CallerItem[] = ITEMS): CallerSource => ({ kind: 'outbound', script: scenarioById(id).script!, items });

type Line = { who: 'agent'; text: string } | { who: 'contact'; text: string } | { who: 'keys'; digit: string };

/**
 * A correct agent as the sandbox model behaves: asks each item in order (its prompt, as a
 * question), asks again once what it could not map, closes after the last item; honours an
 * opt-out at once. `carriesOn`: it ignores opt-outs and declines (to see the contact give up).
 */
function converse(source: CallerSource, opts: { carriesOn?: boolean } = {}) {
  const lines: Line[] = [];
  let state = initialCallerState();
  let asked = 0;
  let reasked = false;
  let end: 'agent' | 'contact' | null = null;
  let move: CallerMove;
  ({ state, move } = nextMove(source, state, { type: 'greeting' }));
  const items = source.kind === 'outbound' ? source.items : [];
  for (let guard = 0; guard < 50 && !end; guard++) {
    if (move.kind === 'hang_up') {
      if (move.text) lines.push({ who: 'contact', text: move.text });
      end = 'contact';
      break;
    }
    if (move.kind === 'press') lines.push({ who: 'keys', digit: move.digit });
    if (move.kind === 'say') lines.push({ who: 'contact', text: move.text });
    const said = move.kind === 'say' ? move.text : '';
    let reply: string;
    if (!opts.carriesOn && [LINES.optOut, LINES.optOutSpanish, LINES.wrongPerson].includes(said as never)) {
      lines.push({ who: 'agent', text: 'Understood, you will not be called again. Goodbye.' });
      end = 'agent';
      break;
    }
    if (!opts.carriesOn && said === LINES.declines) {
      lines.push({ who: 'agent', text: 'No problem, thank you for your time. Goodbye.' });
      end = 'agent';
      break;
    }
    if (said === LINES.refuse && !reasked && asked > 0) {
      reasked = true;
      reply = `Sorry, ${items[asked - 1]!.prompt}`;
    } else if (asked < items.length) {
      reasked = false;
      reply = items[asked++]!.prompt.replace(/[?.]?$/, '?');
    } else {
      lines.push({ who: 'agent', text: 'Thank you, that is everything I needed. Goodbye.' });
      end = 'agent';
      break;
    }
    lines.push({ who: 'agent', text: reply });
    ({ state, move } = nextMove(source, state, { type: 'reply', text: reply, interrupted: false }));
  }
  const contact = lines.filter((l): l is Extract<Line, { who: 'contact' }> => l.who === 'contact').map((l) => l.text);
  return { lines, contact, end, state };
}

describe('what the contact says, number by number, against a correct agent', () => {
  it('goal (555-0100): hello, then every item answered (a scored question with its first option); the agent closes', () => {
    const c = converse(outbound('goal'));
    expect(c.contact).toEqual([LINES.hello, 'Sandbox answer to confirm_identity', 'Sandbox answer to roof_age', 'very']);
    expect(c.end).toBe('agent');
    expect(c.state.answered).toEqual(['confirm_identity', 'roof_age', 'csat']);
  });

  it('no_goal (555-0110): the last item goes unanswered, asked twice, refused twice', () => {
    const c = converse(outbound('no_goal'));
    expect(c.contact).toEqual([LINES.hello, 'Sandbox answer to confirm_identity', 'Sandbox answer to roof_age', LINES.refuse, LINES.refuse]);
    expect(c.state).toMatchObject({ answered: ['confirm_identity', 'roof_age'], refused: ['csat'] });
    expect(c.end).toBe('agent');
  });

  it('first_only (555-0111): answers the first item, then hangs up on the second', () => {
    const c = converse(outbound('first_only'));
    expect(c.contact).toEqual([LINES.hello, 'Sandbox answer to confirm_identity', LINES.mustGo]);
    expect(c.end).toBe('contact');
  });

  it('declines (555-0112): declines at once; an agent that carries on hears it once more, then the contact hangs up', () => {
    expect(converse(outbound('declines'))).toMatchObject({ contact: [LINES.declines], end: 'agent' });
    expect(converse(outbound('declines'), { carriesOn: true })).toMatchObject({ contact: [LINES.declines, LINES.stillDeclining], end: 'contact' });
  });

  it.each([
    ['do_not_call', LINES.optOut, 'en-US'],
    ['wrong_person', LINES.wrongPerson, 'en-US'],
    ['opt_out_es', 'No me llames más.', 'es-ES'],
  ] as const)('%s: the first line is the opt-out, in its language', (id, line, lang) => {
    const first = nextMove(outbound(id), initialCallerState(), { type: 'greeting' });
    expect(first.move).toEqual({ kind: 'say', text: line, lang });
    expect(first.state.stage).toBe('opted_out');
    expect(converse(outbound(id))).toMatchObject({ contact: [line], end: 'agent' });
  });

  it('opt_out_ignored (555-0141): an agent that carries on after the opt-out: "I asked you not to call me", then the contact hangs up', () => {
    const c = converse(outbound('opt_out_ignored'), { carriesOn: true });
    expect(c.contact).toEqual([LINES.optOut, LINES.stillOptedOut]);
    expect(c.end).toBe('contact');
  });

  it('asks_robot (555-0114) and asks_human (555-0115) open with their question, then answer everything', () => {
    expect(converse(outbound('asks_robot')).contact).toEqual([
      'Hello? Are you a robot?',
      'Sandbox answer to confirm_identity',
      'Sandbox answer to roof_age',
      'very',
    ]);
    expect(converse(outbound('asks_human')).contact[0]).toBe('Can I talk to a real person?');
  });

  it.each(SCENARIOS.filter((s) => s.script).map((s) => s.id))('%s ends within its line budget, even against an agent that never stops', (id) => {
    const c = converse(outbound(id), { carriesOn: true });
    expect(c.end).not.toBeNull();
    expect(c.contact.length).toBeLessThanOrEqual(maxLines(outbound(id)));
  });
});

describe('the interrupting contact (555-0113)', () => {
  const source = outbound('interrupts');

  it('talks over the first reply after its opening line only, with the first half of the words received', () => {
    const opened = nextMove(source, initialCallerState(), { type: 'greeting' }).state;
    expect(interruption(source, initialCallerState(), 'Confirm you are')).toBeNull(); // nothing said yet
    expect(interruption(source, opened, '')).toBeNull();
    const cut = interruption(source, opened, 'Confirm you are speaking with the');
    expect(cut).toEqual({ heard: 'Confirm you are', durationMs: speakMs('Confirm you are') });
    expect(interruption(source, opened, 'Hi')).toEqual({ heard: 'Hi', durationMs: 600 });
    expect(interruption(source, markInterrupted(opened), 'Confirm you are speaking')).toBeNull(); // once
    expect(interruption(outbound('goal'), opened, 'Confirm you are speaking')).toBeNull(); // only this number
  });

  it('barges in answering what it heard: the item the words start, a yes/no question, else "Sandbox answer"', () => {
    const opened = markInterrupted(nextMove(source, initialCallerState(), { type: 'greeting' }).state);
    expect(nextMove(source, opened, { type: 'reply', text: 'How old is', interrupted: true }).move).toMatchObject({
      kind: 'say',
      text: 'Sandbox answer to roof_age',
    });
    expect(nextMove(source, opened, { type: 'reply', text: 'Am I speaking with', interrupted: true }).move).toMatchObject({ kind: 'say', text: LINES.yesGate });
    expect(nextMove(source, opened, { type: 'reply', text: 'Well, let me', interrupted: true }).move).toMatchObject({
      kind: 'say',
      text: LINES.unknownQuestion,
    });
  });
});

describe('replies that ask no item', () => {
  const goal = outbound('goal');
  const talking: CallerState = { ...initialCallerState(), lines: 1 };

  it('"press 1" presses the key; "anything else?" no; an offer yes (no when the script misses its goal); another question "Sandbox answer"', () => {
    expect(nextMove(goal, talking, { type: 'reply', text: 'To confirm, press 1.', interrupted: false }).move).toEqual({ kind: 'press', digit: '1' });
    expect(nextMove(goal, talking, { type: 'reply', text: 'Otherwise press star.', interrupted: false }).move).toEqual({ kind: 'press', digit: '*' });
    expect(nextMove(goal, talking, { type: 'reply', text: 'Is there anything else I can help with?', interrupted: false })).toMatchObject({
      move: { text: LINES.nothingElse },
      state: { stage: 'closing' },
    });
    expect(nextMove(goal, talking, { type: 'reply', text: 'Shall I book Tuesday at 3 PM?', interrupted: false }).move).toMatchObject({ text: LINES.yes });
    expect(nextMove(outbound('no_goal'), talking, { type: 'reply', text: 'Shall I book Tuesday at 3 PM?', interrupted: false }).move).toMatchObject({
      text: LINES.no,
    });
    expect(nextMove(goal, talking, { type: 'reply', text: 'What is your favourite colour?', interrupted: false }).move).toMatchObject({
      text: LINES.unknownQuestion,
    });
  });

  it('a yes/no question (an identity gate, "shall we carry on?") is a yes, whatever the script', () => {
    for (const text of ['Am I speaking with the right person?', "Yes, I'm an automated assistant. Shall we carry on?", 'Is this a good time?']) {
      expect(nextMove(goal, talking, { type: 'reply', text, interrupted: false }).move, text).toMatchObject({ text: LINES.yesGate });
      expect(nextMove(outbound('no_goal'), talking, { type: 'reply', text, interrupted: false }).move, text).toMatchObject({ text: LINES.yesGate });
    }
  });

  it('first_only counts every distinct question: a gate answered, then the next question ends the call; the same question asked again is answered again', () => {
    const src = outbound('first_only');
    const gate = nextMove(src, talking, { type: 'reply', text: 'Am I speaking with the right person?', interrupted: false });
    expect(gate.move).toMatchObject({ text: LINES.yesGate });
    expect(
      nextMove(src, gate.state, { type: 'reply', text: "Sorry, I didn't catch that. Am I speaking with the right person?", interrupted: false }).move,
    ).toMatchObject({ text: LINES.yesGate });
    expect(nextMove(src, gate.state, { type: 'reply', text: 'Thanks. How old is your roof?', interrupted: false }).move).toEqual({
      kind: 'hang_up',
      text: LINES.mustGo,
      lang: 'en-US',
    });
  });

  it('the question a reply ends with is its last sentence', () => {
    expect(questionOf('Thanks. How old is your roof?')).toBe('how old is your roof');
    expect(questionOf('Is it sunny? I hope so.')).toBeNull();
    expect(questionOf('Goodbye.')).toBeNull();
  });

  it('a statement: listen; a silence after it: "Okay." once, then the contact hangs up', () => {
    const heard = nextMove(goal, talking, { type: 'reply', text: 'I am an automated assistant.', interrupted: false });
    expect(heard.move).toEqual({ kind: 'listen' });
    const okay = nextMove(goal, heard.state, { type: 'silence' });
    expect(okay.move).toEqual({ kind: 'say', text: LINES.okay, lang: 'en-US' });
    expect(nextMove(goal, okay.state, { type: 'silence' }).move).toEqual({ kind: 'hang_up', text: LINES.goodbye, lang: 'en-US' });
  });

  it('a contact that said its last line hangs up silently when the agent says nothing more', () => {
    const closing: CallerState = { ...talking, stage: 'closing' };
    expect(nextMove(goal, closing, { type: 'silence' }).move).toEqual({ kind: 'hang_up', text: null, lang: 'en-US' });
  });

  it('a reconnect (a second greeting) does not repeat the opening line', () => {
    expect(nextMove(goal, talking, { type: 'greeting' }).move).toEqual({ kind: 'listen' });
  });

  it('past its line budget the contact hangs up', () => {
    expect(nextMove(goal, { ...talking, lines: maxLines(goal) }, { type: 'reply', text: 'How old is your roof?', interrupted: false }).move).toEqual({
      kind: 'hang_up',
      text: LINES.mustGo,
      lang: 'en-US',
    });
  });
});

describe('inbound callers', () => {
  it('enquiry: asks the opening hours, then thanks the agent and hangs up', () => {
    const src: CallerSource = { kind: 'inbound', name: 'enquiry' };
    const open = nextMove(src, initialCallerState(), { type: 'greeting' });
    expect(open.move).toEqual({ kind: 'say', text: LINES.enquiry, lang: 'en-US' });
    expect(nextMove(src, open.state, { type: 'reply', text: "We're open nine to one on Saturdays.", interrupted: false }).move).toEqual({
      kind: 'hang_up',
      text: LINES.enquiryDone,
      lang: 'en-US',
    });
  });

  it('booking: asks for an appointment, gives a time, accepts the slot offered, needs nothing else', () => {
    const src: CallerSource = { kind: 'inbound', name: 'booking' };
    let { state, move } = nextMove(src, initialCallerState(), { type: 'greeting' });
    expect(move).toMatchObject({ text: LINES.booking });
    const said: string[] = [];
    for (const reply of [
      'Of course. What day and time would suit you?',
      'I have Wednesday at 3:00 PM available. Shall I book that for you?',
      "You're booked. Is there anything else?",
    ]) {
      ({ state, move } = nextMove(src, state, { type: 'reply', text: reply, interrupted: false }));
      said.push((move as { text: string }).text);
    }
    expect(said).toEqual([LINES.bookingWhen, LINES.bookingYes, LINES.nothingElse]);
    expect(nextMove(src, state, { type: 'silence' }).move).toEqual({ kind: 'hang_up', text: null, lang: 'en-US' });
  });
});

describe('helpers', () => {
  it('normalises case, accents and punctuation', () => {
    expect(normalise('  ¿No me LLAMES más?! ')).toBe('no me llames mas');
  });

  it('an item is asked when the reply says its prompt; the later one when it says several', () => {
    expect(itemAsked(ITEMS, 'Thanks! And how old is your roof?')?.id).toBe('roof_age');
    expect(itemAsked(ITEMS, 'Got it. How old is your roof? How satisfied are you?')?.id).toBe('csat');
    expect(itemAsked(ITEMS, 'Great weather today.')).toBeUndefined();
  });

  it('the answer to a scored question is its first option', () => {
    expect(answerFor(ITEMS[2]!)).toBe('very');
    expect(answerFor(ITEMS[1]!)).toBe('Sandbox answer to roof_age');
  });

  it('the items are the objectives, then the questions with their scoring labels as options', () => {
    const version = { objectives: [{ id: 'confirm_identity', description: 'Confirm you are speaking with the intended contact', required: true }] };
    const questions = [
      { id: 'roof_age', prompt: 'How old is your roof?' },
      { id: 'csat', prompt: 'How satisfied are you?', scoring: { mapping: { very: 5, somewhat: 3 } } },
    ];
    expect(callerItems(version, questions)).toEqual(ITEMS);
  });
});
