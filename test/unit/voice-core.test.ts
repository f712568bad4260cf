import { describe, expect, it } from 'vitest';
import { runtimeEvent } from '../../shared/schemas/runtime-events.js';
import { type CallSetup, type CoreInput, callSetup, initialState, type SessionState, type StepResult } from '../../shared/voice/core/state.js';
import { step } from '../../shared/voice/core/step.js';
import { LINES } from '../../shared/voice/phrases.js';
import type { CallBrief, RuntimeEventInput } from '../../shared/voice/ports.js';
import { type OutboundMessage, outbound } from '../../shared/voice/protocol.js';

const T0 = Date.parse('2026-11-24T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const claims = { tenant_id: 'ten_1', call_id: 'cal_1', agent_version_id: 'agv_1', number_id: 'num_1', exp: 2_000_000_000 };
const GREETING = 'Hello, this is an automated assistant calling on behalf of Acme. This call may be recorded.';

const call = (over: Partial<CallSetup> = {}): CallSetup => ({
  claims,
  greeting: GREETING,
  language: 'en-US',
  supportedLanguages: ['en-US', 'es-ES'],
  allowLanguageSwitch: false,
  transferRepId: null,
  ...over,
});
const setup = { type: 'setup' as const, sessionId: 'VX123', callSid: 'CA123', customParameters: { token: 'secret' } };

/** Drives the core, checking every frame against `outbound` and every event against the events route's schema. */
class Harness {
  state: SessionState = initialState();
  sent: OutboundMessage[] = [];
  events: RuntimeEventInput[] = [];
  last!: StepResult;
  input(input: CoreInput, ms: number): StepResult {
    const r = step(this.state, input, at(ms));
    for (const m of r.send) expect(outbound.safeParse(m).success, JSON.stringify(m)).toBe(true);
    for (const e of r.events) expect(runtimeEvent.safeParse(e).error?.issues ?? [], JSON.stringify(e)).toEqual([]);
    expect(JSON.parse(JSON.stringify(r.state))).toEqual(r.state);
    this.state = r.state;
    this.sent.push(...r.send);
    this.events.push(...r.events);
    this.last = r;
    return r;
  }
  start(over: Partial<CallSetup> = {}, ms = 0) {
    return this.input({ type: 'start', setup, call: call(over) }, ms);
  }
  say(text: string, ms: number, lang?: string) {
    return this.input({ type: 'inbound', message: { type: 'prompt', voicePrompt: text, last: true, ...(lang ? { lang } : {}) } }, ms);
  }
  get generation() {
    return this.state.generation;
  }
  texts() {
    return this.sent.filter((m) => m.type === 'text');
  }
}

const startReplies = (r: StepResult) => r.effects.filter((e) => e.kind === 'start_reply');
const turns = (h: Harness) => h.events.filter((e) => e.type === 'turn');

describe('setup', () => {
  it('reports the disclosure, then the greeting as the first agent turn, with session-scoped ids', () => {
    const h = new Harness();
    const r = h.start();
    expect(r.send).toEqual([]);
    expect(r.events.map((e) => e.type)).toEqual(['disclosure', 'turn', 'usage']);
    expect(r.events[0]).toMatchObject({ id: 'VX123:0', at: '2026-11-24T12:00:00.000Z', text: GREETING });
    expect(r.events[1]).toMatchObject({ id: 'VX123:1', speaker: 'agent', text: GREETING, start_ms: 0 });
    expect(r.events[2]).toMatchObject({ characters_spoken: GREETING.length });
    expect(h.state).toMatchObject({ phase: 'live', disclosureSaid: true, sessionId: 'VX123' });
  });

  it('ignores a replayed setup on a live session (logged, nothing reported)', () => {
    const h = new Harness();
    h.start();
    const before = h.state;
    for (const r of [h.input({ type: 'start', setup, call: call() }, 10), h.input({ type: 'inbound', message: { ...setup } }, 20)]) {
      expect(r.events).toEqual([]);
      expect(r.send).toEqual([]);
      expect(r.effects).toEqual([expect.objectContaining({ kind: 'log', level: 'warn' })]);
    }
    expect(h.state).toEqual(before);
  });

  it('ignores anything before setup', () => {
    const h = new Harness();
    const r = h.say('hello', 5);
    expect(r.events).toEqual([]);
    expect(h.state.phase).toBe('awaiting_setup');
  });

  it('reads the call settings from the brief', () => {
    const brief = {
      claims,
      definition: {
        tools: ['transfer_to_human'],
        llm_route: { primary: 'm', fallbacks: [] },
        disclosure_config: { business_name: 'Acme' },
        conversation_settings: { default_language: 'es-ES', supported_languages: ['es-ES', 'en-US'], allow_language_switch: true },
      },
      transfer_targets: [{ rep_id: 'rep_1', name: 'Ana' }],
    } as unknown as CallBrief;
    expect(callSetup(brief)).toEqual({
      claims,
      greeting: 'Hello, this is an automated assistant calling on behalf of Acme. This call may be recorded.',
      language: 'es-ES',
      supportedLanguages: ['es-ES', 'en-US'],
      allowLanguageSwitch: true,
      transferRepId: 'rep_1',
    });
    expect(callSetup({ ...brief, definition: { ...brief.definition, tools: [] } }).transferRepId).toBeNull();
  });
});

describe('a turn', () => {
  it('accumulates partials, reports the contact turn, streams the reply as phrases and measures latency to the first frame', () => {
    const h = new Harness();
    h.start();
    h.input({ type: 'inbound', message: { type: 'prompt', voicePrompt: 'I would like', last: false } }, 1000);
    h.input({ type: 'inbound', message: { type: 'prompt', voicePrompt: 'I would like to book', last: false } }, 1400);
    const r = h.say('I would like to book a visit.', 2000);
    expect(r.events).toEqual([
      expect.objectContaining({
        type: 'turn',
        speaker: 'contact',
        text: 'I would like to book a visit.',
        start_ms: 1000,
        end_ms: 2000,
        at: at(1000).toISOString(),
      }),
    ]);
    const [start] = startReplies(r);
    expect(start).toMatchObject({
      generation: 1,
      messages: [
        { role: 'assistant', content: GREETING },
        { role: 'user', content: 'I would like to book a visit.' },
      ],
    });
    for (const [i, d] of ['Sure', ',', ' I', ' can', ' help', '.'].entries()) h.input({ type: 'reply_delta', generation: 1, text: d }, 2100 + i * 10);
    expect(h.texts()).toEqual([]); // "Sure, I can help." waits for what follows the full stop
    h.input({ type: 'reply_delta', generation: 1, text: ' What day' }, 2600);
    expect(h.texts()).toEqual([{ type: 'text', token: 'Sure, I can help.', last: false }]);
    h.input({ type: 'reply_delta', generation: 1, text: ' suits you?' }, 2700);
    const fin = h.input(
      { type: 'reply_finished', generation: 1, model: 'openai:gpt-4o-mini', usage: { inputTokens: 120, outputTokens: 12, cachedInputTokens: 100 } },
      2800,
    );
    expect(h.texts()).toEqual([
      { type: 'text', token: 'Sure, I can help.', last: false },
      { type: 'text', token: ' What day suits you?', last: true },
    ]);
    expect(fin.events).toEqual([
      expect.objectContaining({ type: 'usage', llm_input_tokens: 120, llm_output_tokens: 12, llm_cached_input_tokens: 100, characters_spoken: 37 }),
    ]);
    // The agent turn is reported once it can no longer change: at the contact's next input.
    const next = h.say('Tuesday', 5000);
    expect(next.events[0]).toMatchObject({
      type: 'turn',
      speaker: 'agent',
      text: 'Sure, I can help. What day suits you?',
      latency_ms: 600,
      model: 'openai:gpt-4o-mini',
      start_ms: 2600,
      at: at(2600).toISOString(),
    });
    expect(next.events[0]).not.toHaveProperty('interrupted');
    expect(startReplies(next)[0]!.messages.at(-2)).toEqual({ role: 'assistant', content: 'Sure, I can help. What day suits you?' });
  });

  it('ids stay deterministic: the same inputs at the same instants give the same events', () => {
    const run = () => {
      const h = new Harness();
      h.start();
      h.say('hello', 1000);
      h.input({ type: 'reply_delta', generation: 1, text: 'Hi there. ' }, 1100);
      h.input({ type: 'reply_finished', generation: 1, model: 'm', usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 } }, 1200);
      h.input({ type: 'socket_closed' }, 3000);
      return h.events;
    };
    const a = run();
    expect(run()).toEqual(a);
    expect(new Set(a.map((e) => e.id)).size).toBe(a.length);
    expect(a.map((e) => e.id)).toEqual(a.map((_, i) => `VX123:${i}`));
  });

  it('reports only what the events route accepts, whatever the provider said', () => {
    const h = new Harness();
    h.start();
    h.say('hello', 1000);
    h.input({ type: 'reply_delta', generation: 1, text: 'Hi. ' }, 1100);
    const r = h.input(
      { type: 'reply_finished', generation: 1, model: 'x'.repeat(300), usage: { inputTokens: Number.NaN, outputTokens: 12.6, cachedInputTokens: 50 } },
      1200,
    );
    expect(r.events[0]).toMatchObject({ llm_input_tokens: 0, llm_output_tokens: 13, llm_cached_input_tokens: 0 });
    expect(h.say('bye', 2000).events[0]).toMatchObject({ speaker: 'agent', model: 'x'.repeat(200) });
  });

  it('ignores an empty final prompt', () => {
    const h = new Harness();
    h.start();
    const r = h.say('   ', 1000);
    expect(r.events).toEqual([]);
    expect(startReplies(r)).toEqual([]);
  });
});

describe('interrupt', () => {
  function streaming() {
    const h = new Harness();
    h.start();
    h.say('Tell me about the offer', 1000);
    h.input({ type: 'reply_delta', generation: 1, text: 'Our offer is simple. It includes three things, ' }, 1200);
    return h;
  }

  it('bumps the generation at once; no token of the stale reply is sent after; the turn is what was heard', () => {
    const h = streaming();
    expect(h.texts()).toHaveLength(1);
    const r = h.input({ type: 'inbound', message: { type: 'interrupt', utteranceUntilInterrupt: 'Our offer', durationUntilInterruptMs: 800 } }, 1500);
    expect(r.effects).toContainEqual({ kind: 'abort_reply', generation: 1 });
    expect(h.generation).toBe(2);
    expect(r.events).toEqual([
      expect.objectContaining({ type: 'usage', characters_spoken: 'Our offer is simple.'.length }),
      expect.objectContaining({ type: 'turn', speaker: 'agent', text: 'Our offer', interrupted: true, latency_ms: 200 }),
    ]);
    const sentBefore = h.sent.length;
    h.input({ type: 'reply_delta', generation: 1, text: 'first, a discount. Second, more. ' }, 1600);
    h.input({ type: 'reply_finished', generation: 1, model: 'm', usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 } }, 1700);
    expect(h.sent.length).toBe(sentBefore);
    expect(h.state.transcript.at(-1)).toMatchObject({ speaker: 'agent', text: 'Our offer', interrupted: true });
  });

  it('marks a reply Twilio was still speaking after we sent it all', () => {
    const h = streaming();
    h.input({ type: 'reply_finished', generation: 1, model: 'm', usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 } }, 1300);
    const r = h.input(
      { type: 'inbound', message: { type: 'interrupt', utteranceUntilInterrupt: 'Our offer is simple. It includes', durationUntilInterruptMs: 2000 } },
      3000,
    );
    expect(r.effects.filter((e) => e.kind === 'abort_reply')).toEqual([]);
    expect(r.events).toEqual([
      expect.objectContaining({ type: 'turn', speaker: 'agent', text: 'Our offer is simple. It includes', interrupted: true, model: 'm' }),
    ]);
  });

  it('a new final prompt while replying supersedes the reply', () => {
    const h = streaming();
    const r = h.say('Actually, never mind', 1400);
    expect(r.effects).toContainEqual({ kind: 'abort_reply', generation: 1 });
    expect(turns(h).slice(-2)).toEqual([
      expect.objectContaining({ speaker: 'agent', interrupted: true, text: 'Our offer is simple.' }),
      expect.objectContaining({ speaker: 'contact', text: 'Actually, never mind' }),
    ]);
    expect(startReplies(r)[0]).toMatchObject({ generation: 3 });
  });
});

describe('compliance before the model', () => {
  it('an opt-out is reported and stored before the acknowledgement, in the call language, then the call ends', () => {
    const h = new Harness();
    h.start({ language: 'es-ES' });
    const r = h.say('¡Deje de llamarme!', 1000);
    expect(r.events.map((e) => e.type)).toEqual(['turn', 'opt_out', 'usage', 'turn', 'outcome', 'hangup', 'usage']);
    expect(r.events[1]).toMatchObject({ type: 'opt_out', reason: 'opt_out', text: '¡Deje de llamarme!' });
    expect(r.effects).toContainEqual({ kind: 'store_before_speaking', count: 2 });
    expect(r.send).toEqual([
      { type: 'text', token: LINES.es!.opt_out_ack, last: true },
      { type: 'end', handoffData: JSON.stringify({ reason: 'opt_out' }) },
    ]);
    expect(r.events[3]).toMatchObject({ speaker: 'agent', text: LINES.es!.opt_out_ack });
    expect(r.events[4]).toMatchObject({ outcome: { outcome_type: 'none', goal_reached: false } });
    expect(r.events[5]).toMatchObject({ by: 'agent', reason: 'opt_out' });
    expect(r.events[6]).toMatchObject({ audio_seconds: 1 });
    expect(startReplies(r)).toEqual([]);
    expect(r.effects).toContainEqual({ kind: 'session_ended', by: 'agent', handoff: { reason: 'opt_out' } });
    // Nothing more is said or reported.
    expect(h.say('hello?', 2000)).toMatchObject({ send: [], events: [] });
    expect(h.input({ type: 'socket_closed' }, 3000)).toMatchObject({ send: [], events: [] });
  });

  it('a wrong person is an opt-out with reason wrong_person', () => {
    const h = new Harness();
    h.start();
    const r = h.say("Sorry, you've got the wrong number.", 1000);
    expect(r.events[1]).toMatchObject({ type: 'opt_out', reason: 'wrong_person' });
    expect(r.send[0]).toMatchObject({ token: LINES.en!.wrong_person_ack });
    expect(r.send[1]).toEqual({ type: 'end', handoffData: '{"reason":"opt_out"}' });
  });

  it('an opt-out mid-reply aborts the reply first', () => {
    const h = new Harness();
    h.start();
    h.say('hi', 1000);
    h.input({ type: 'reply_delta', generation: 1, text: 'Hello! I am calling about ' }, 1100);
    const r = h.say('stop calling me', 1500);
    expect(r.effects[0]).toEqual({ kind: 'abort_reply', generation: 1 });
    expect(r.send.at(-1)).toMatchObject({ type: 'end' });
  });

  it('"are you a robot?" is answered by the runtime, and the conversation carries on', () => {
    const h = new Harness();
    h.start();
    const r = h.say('Wait, am I talking to a real person?', 1000);
    expect(r.send).toEqual([{ type: 'text', token: LINES.en!.robot_answer, last: true }]);
    expect(startReplies(r)).toEqual([]);
    expect(h.state.ended).toBe(false);
    const next = h.say('OK, go on', 4000);
    expect(next.events[0]).toMatchObject({ type: 'turn', speaker: 'agent', text: LINES.en!.robot_answer, latency_ms: 0 });
    expect(startReplies(next)).toHaveLength(1);
  });

  it('a keypad digit goes to the model as a user turn, never through the phrase lists', () => {
    const h = new Harness();
    h.start();
    const r = h.input({ type: 'inbound', message: { type: 'dtmf', digit: '5' } }, 1000);
    expect(r.events).toEqual([expect.objectContaining({ type: 'turn', speaker: 'contact', text: '[keypad: 5]' })]);
    expect(startReplies(r)[0]!.messages.at(-1)).toEqual({ role: 'user', content: '[keypad: 5]' });
  });
});

describe('language', () => {
  it('is switched only when allowed and supported; later frames carry lang', () => {
    const refused = new Harness();
    refused.start({ allowLanguageSwitch: false });
    expect(refused.input({ type: 'switch_language', language: 'es-ES' }, 100).send).toEqual([]);

    const h = new Harness();
    h.start({ allowLanguageSwitch: true });
    expect(h.input({ type: 'switch_language', language: 'ja-JP' }, 100).send).toEqual([]);
    expect(h.input({ type: 'switch_language', language: 'es-ES' }, 200).send).toEqual([
      { type: 'language', ttsLanguage: 'es-ES', transcriptionLanguage: 'es-ES' },
    ]);
    const r = h.say('¿Eres un robot?', 1000);
    expect(r.send).toEqual([{ type: 'text', token: LINES.es!.robot_answer, last: true, lang: 'es-ES' }]);
  });

  it('follows the language Twilio transcribed, when allowed', () => {
    const h = new Harness();
    h.start({ allowLanguageSwitch: true });
    const r = h.say('Hola, buenos días', 1000, 'es');
    expect(r.send).toEqual([{ type: 'language', ttsLanguage: 'es-ES', transcriptionLanguage: 'es-ES' }]);
    expect(startReplies(r)[0]).toMatchObject({ language: 'es-ES' });
  });
});

describe('tools', () => {
  function replying() {
    const h = new Harness();
    h.start();
    h.say('When are you free?', 1000);
    h.input({ type: 'reply_delta', generation: 1, text: 'Let me check the calendar.' }, 1100);
    return h;
  }

  it('a starting tool flushes what the model said before it', () => {
    const h = replying();
    expect(h.input({ type: 'tool_started', generation: 1, toolName: 'check_calendar' }, 1200).send).toEqual([
      { type: 'text', token: 'Let me check the calendar.', last: false },
    ]);
  });

  it('a slow tool gets one filler phrase', () => {
    const h = replying();
    h.input({ type: 'tool_started', generation: 1, toolName: 'check_calendar' }, 1200);
    expect(h.input({ type: 'tool_slow', generation: 1, toolName: 'check_calendar' }, 2700).send).toEqual([
      { type: 'text', token: ` ${LINES.en!.filler}`, last: false },
    ]);
    expect(h.input({ type: 'tool_slow', generation: 1, toolName: 'check_calendar' }, 4200).send).toEqual([]);
  });

  it('a failed tool gets one graceful sentence', () => {
    const h = replying();
    const r = h.input({ type: 'tool_failed', generation: 1, toolName: 'check_calendar' }, 1300);
    expect(r.send).toEqual([
      { type: 'text', token: 'Let me check the calendar.', last: false },
      { type: 'text', token: ` ${LINES.en!.tool_failed}`, last: false },
    ]);
    expect(h.input({ type: 'tool_failed', generation: 1, toolName: 'check_calendar' }, 1400).send).toEqual([]);
  });

  it("a stale generation's tool events say nothing", () => {
    const h = replying();
    h.input({ type: 'inbound', message: { type: 'interrupt', utteranceUntilInterrupt: '', durationUntilInterruptMs: 0 } }, 1150);
    expect(h.input({ type: 'tool_slow', generation: 1, toolName: 'check_calendar' }, 2700).send).toEqual([]);
  });
});

describe('keypad', () => {
  it('digits are sent only when a tool of the current reply asks, and only valid ones', () => {
    const h = new Harness();
    h.start();
    const dtmf = h.input({ type: 'inbound', message: { type: 'dtmf', digit: '1' } }, 500);
    expect(dtmf.send.filter((m) => m.type === 'sendDigits')).toEqual([]);
    expect(h.input({ type: 'send_digits', generation: 1, digits: '12w#' }, 1000).send).toEqual([{ type: 'sendDigits', digits: '12w#' }]);
    expect(h.input({ type: 'send_digits', generation: 1, digits: '12; drop' }, 1100)).toMatchObject({ send: [], effects: [{ kind: 'log', level: 'warn' }] });
    expect(h.input({ type: 'send_digits', generation: 0, digits: '9' }, 1200).send).toEqual([]);
  });
});

describe('ending', () => {
  it('a tool-requested end waits for the reply to be sent, then ends and reports the hangup', () => {
    const h = new Harness();
    h.start();
    h.say('Thanks, bye', 1000);
    h.input({ type: 'reply_delta', generation: 1, text: 'Thank you for your time. ' }, 1100);
    const req = h.input({ type: 'end_requested', generation: 1, handoff: { reason: 'end_call' } }, 1150);
    expect(req.send).toEqual([]);
    h.input({ type: 'reply_delta', generation: 1, text: 'Goodbye!' }, 1200);
    const r = h.input({ type: 'reply_finished', generation: 1, model: 'm', usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 } }, 1300);
    expect(r.send).toEqual([
      { type: 'text', token: ' Goodbye!', last: true },
      { type: 'end', handoffData: '{"reason":"end_call"}' },
    ]);
    // No tool reported an outcome: the ending reports none, goal not reached, before the hangup.
    expect(r.events.map((e) => e.type)).toEqual(['usage', 'turn', 'outcome', 'hangup', 'usage']);
    expect(r.events[2]).toMatchObject({ outcome: { outcome_type: 'none', goal_reached: false } });
    expect(r.events[3]).toMatchObject({ by: 'agent', reason: 'end_call' });
    expect(r.events[4]).toMatchObject({ audio_seconds: 1.3 });
  });

  it('an ending after a tool reported the outcome reports no other', () => {
    const h = new Harness();
    h.start();
    h.say('Thanks, bye', 1000);
    h.input({ type: 'outcome_reported' }, 1050);
    h.input({ type: 'end_requested', generation: 1, handoff: { reason: 'end_call' } }, 1100);
    const r = h.input({ type: 'reply_finished', generation: 1, model: 'm', usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 } }, 1200);
    expect(r.events.map((e) => e.type)).toEqual(['usage', 'hangup', 'usage']);
  });

  it('ignores an end requested by a stale reply', () => {
    const h = new Harness();
    h.start();
    h.say('hello', 1000);
    h.input({ type: 'inbound', message: { type: 'interrupt', utteranceUntilInterrupt: '', durationUntilInterruptMs: 0 } }, 1100);
    expect(h.input({ type: 'end_requested', generation: 1, handoff: { reason: 'end_call' } }, 1200).send).toEqual([]);
    expect(h.state.ended).toBe(false);
  });

  it('a model failing every attempt: a closing line, then a transfer when one is granted', () => {
    const h = new Harness();
    h.start({ transferRepId: 'rep_1' });
    h.say('hello', 1000);
    const r = h.input({ type: 'reply_failed', generation: 1, models: ['a', 'b'] }, 4000);
    expect(r.send).toEqual([
      { type: 'text', token: LINES.en!.model_failed_transfer, last: true },
      { type: 'end', handoffData: JSON.stringify({ reason: 'transfer_to_human', rep_id: 'rep_1' }) },
    ]);
    expect(r.events.find((e) => e.type === 'turn')).toMatchObject({ speaker: 'agent', text: LINES.en!.model_failed_transfer, latency_ms: 3000 });
  });

  it('a model failing every attempt without a transfer ends with model_failed', () => {
    const h = new Harness();
    h.start();
    h.say('hello', 1000);
    const r = h.input({ type: 'reply_failed', generation: 1, models: ['a'] }, 2000);
    expect(r.send.at(-1)).toEqual({ type: 'end', handoffData: '{"reason":"model_failed"}' });
    expect(r.effects).toContainEqual(expect.objectContaining({ kind: 'log', level: 'error' }));
  });

  it('the socket closed by Twilio without our end is a hangup by the contact', () => {
    const h = new Harness();
    h.start();
    h.say('hello', 1000);
    h.input({ type: 'reply_delta', generation: 1, text: 'Hi! How are you? ' }, 1100);
    const r = h.input({ type: 'socket_closed' }, 2500);
    expect(r.effects).toContainEqual({ kind: 'abort_reply', generation: 1 });
    expect(r.events.map((e) => e.type)).toEqual(['usage', 'turn', 'outcome', 'hangup', 'usage']);
    expect(r.events[3]).toMatchObject({ by: 'contact' });
    expect(r.events[4]).toMatchObject({ audio_seconds: 2.5 });
    expect(r.send).toEqual([]);
    expect(h.input({ type: 'socket_closed' }, 2600).events).toEqual([]);
  });

  it('a socket closed before setup reports nothing', () => {
    const h = new Harness();
    expect(h.input({ type: 'socket_closed' }, 10).events).toEqual([]);
  });
});

describe('robustness', () => {
  it('a malformed frame or a Twilio error is logged and ignored', () => {
    const h = new Harness();
    h.start();
    const before = h.state;
    expect(h.input({ type: 'invalid_frame', reason: 'not_json' }, 10)).toMatchObject({ send: [], events: [], effects: [{ kind: 'log', level: 'warn' }] });
    expect(h.input({ type: 'inbound', message: { type: 'error', description: 'Invalid message' } }, 20)).toMatchObject({
      send: [],
      events: [],
      effects: [{ kind: 'log', level: 'warn' }],
    });
    expect(h.state).toEqual(before);
  });

  it("logs Twilio's error without the frame it quotes", () => {
    const h = new Harness();
    h.start();
    const r = h.input(
      { type: 'inbound', message: { type: 'error', description: 'Invalid message received: { "type": "text", "token": "your balance is 42" }' } },
      10,
    );
    expect(r.effects).toEqual([
      { kind: 'log', level: 'warn', msg: 'twilio reported an error', fields: { sessionId: 'VX123', description: 'Invalid message received:' } },
    ]);
  });

  it('never logs what the contact said', () => {
    const h = new Harness();
    h.start();
    const r = h.say('My card number is 4111 1111 1111 1111, stop calling me', 1000);
    expect(JSON.stringify(r.effects)).not.toContain('4111');
  });

  it('does not change the state it was given', () => {
    const h = new Harness();
    h.start();
    const frozen = structuredClone(h.state);
    step(h.state, { type: 'inbound', message: { type: 'prompt', voicePrompt: 'hello', last: true } }, at(1000));
    expect(h.state).toEqual(frozen);
  });
});
