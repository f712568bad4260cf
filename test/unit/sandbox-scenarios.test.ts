import { describe, expect, it } from 'vitest';
import { readCallForm } from '../../shared/sandbox/call-form.js';
import { needsScriptedAgent, SCENARIOS, type ScenarioId, scenarioById, scenarioFor, subscriberPart } from '../../shared/sandbox/scenarios.js';
import { callTimeline, DEFAULT_STEP_MS, messageTimeline, stepMsFrom } from '../../shared/sandbox/timeline.js';
import { delaySecondsFor, MAX_DELAY_SECONDS } from '../../shared/sandbox/timeline-queue.js';

/** The test-number table (README, docs/decisions/sandbox.md), row by row. */
const TABLE: [string, ScenarioId][] = [
  ...Array.from({ length: 10 }, (_, i): [string, ScenarioId] => [`555010${i}`, 'goal']),
  ['5550110', 'no_goal'],
  ['5550111', 'first_only'],
  ['5550112', 'declines'],
  ['5550113', 'interrupts'],
  ['5550114', 'asks_robot'],
  ['5550115', 'asks_human'],
  ['5550116', 'asks_pack'],
  ['5550117', 'asks_beyond_pack'],
  ['5550120', 'busy'],
  ['5550121', 'no_answer'],
  ['5550122', 'machine'],
  ['5550123', 'carrier_failure'],
  ['5550130', 'do_not_call'],
  ['5550131', 'wrong_person'],
  ['5550132', 'opt_out_es'],
  ['5550140', 'no_disclosure'],
  ['5550141', 'opt_out_ignored'],
  ['5550142', 'pack_hallucination'],
  ['5550160', 'sms_carrier_error'],
];

const calls = (id: ScenarioId, md: 'Enable' | 'DetectMessageEnd' | null = null) => callTimeline(scenarioById(id), md).map((s) => [s.event, s.callStatus, s.at]);

describe('sandbox test numbers', () => {
  it.each(TABLE)('555-%s plays %s, whatever the area code', (subscriber, id) => {
    for (const area of ['212', '415', '907']) expect(scenarioFor(`+1${area}${subscriber}`).id).toBe(id);
  });

  it('every other number answers and reaches the goal; the subscriber part is the last seven digits', () => {
    expect(scenarioFor('+14155550199').id).toBe('goal');
    expect(scenarioFor('+14158675309').id).toBe('goal');
    expect(subscriberPart('+1 (415) 555-0123')).toBe('5550123');
    expect(scenarioFor('+442075550120').id).toBe('busy'); // any country's tail
  });

  it('lists each subscriber part once, and a script exactly for the calls a person answers', () => {
    const all = SCENARIOS.flatMap((s) => s.subscribers);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(TABLE.map(([s]) => s).sort());
    for (const s of SCENARIOS) expect(s.script === null).toBe(s.carrier !== 'human');
  });

  it('scripts say what each number does in the conversation', () => {
    expect(scenarioById('goal').script).toMatchObject({ answers: 'all', goal: true, opt_out: false, agent_skips_disclosure: false });
    expect(scenarioById('no_goal').script).toMatchObject({ answers: 'all_but_last', goal: false });
    expect(scenarioById('first_only').script).toMatchObject({ answers: 'first_only', callee_hangs_up: true });
    expect(scenarioById('declines').script).toMatchObject({ answers: 'none', declines: true });
    expect(scenarioById('do_not_call').script).toMatchObject({ opt_out: true, wrong_person: false, agent_ignores_opt_out: false });
    expect(scenarioById('wrong_person').script).toMatchObject({ opt_out: true, wrong_person: true });
    expect(scenarioById('no_disclosure').script).toMatchObject({ goal: true, agent_skips_disclosure: true });
    expect(scenarioById('opt_out_ignored').script).toMatchObject({ opt_out: true, agent_ignores_opt_out: true });
    expect(scenarioById('interrupts').script).toMatchObject({ answers: 'all', goal: true, interrupts: true });
    expect(scenarioById('asks_robot').script).toMatchObject({ answers: 'all', goal: true, asks: 'robot' });
    expect(scenarioById('asks_human').script).toMatchObject({ asks: 'human' });
    expect(scenarioById('opt_out_es').script).toMatchObject({ opt_out: true, wrong_person: false, language: 'es-ES' });
  });

  it('only the numbers that need a misbehaving agent keep the scripted runtime', () => {
    expect(SCENARIOS.filter(needsScriptedAgent).map((s) => s.id)).toEqual(['no_disclosure', 'opt_out_ignored', 'pack_hallucination']);
  });
});

describe('carrier timelines', () => {
  it('a person answers: initiated, ringing, in-progress, completed (200, the nominal duration)', () => {
    for (const id of [
      'goal',
      'no_goal',
      'first_only',
      'declines',
      'interrupts',
      'asks_robot',
      'asks_human',
      'do_not_call',
      'wrong_person',
      'opt_out_es',
      'no_disclosure',
      'opt_out_ignored',
    ] as const) {
      const steps = callTimeline(scenarioById(id), null);
      expect(steps.map((s) => s.callStatus)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
      expect(steps[3]).toMatchObject({ sipResponseCode: 200, durationSeconds: scenarioById(id).durationSeconds, at: 3 + scenarioById(id).talkSteps });
      expect(steps.some((s) => s.answeredBy)).toBe(false);
    }
    expect(scenarioById('goal').durationSeconds).toBeGreaterThan(scenarioById('first_only').durationSeconds);
  });

  it('busy, no answer and carrier failure end before anyone answers, with their SIP codes', () => {
    expect(calls('busy')).toEqual([
      ['initiated', 'initiated', 0],
      ['completed', 'busy', 1],
    ]);
    expect(calls('no_answer')).toEqual([
      ['initiated', 'initiated', 0],
      ['ringing', 'ringing', 1],
      ['completed', 'no-answer', 5],
    ]);
    expect(calls('carrier_failure')).toEqual([
      ['initiated', 'initiated', 0],
      ['completed', 'failed', 1],
    ]);
    expect(callTimeline(scenarioById('busy'), null).at(-1)).toMatchObject({ sipResponseCode: 486, durationSeconds: 0 });
    expect(callTimeline(scenarioById('no_answer'), null).at(-1)).toMatchObject({ sipResponseCode: 487 });
    expect(callTimeline(scenarioById('carrier_failure'), null).at(-1)).toMatchObject({ sipResponseCode: 503 });
  });

  it('machine detection names who answered: machine_start, machine_end_beep, human; nothing without it', () => {
    expect(
      callTimeline(scenarioById('machine'), 'Enable')
        .slice(2)
        .map((s) => s.answeredBy),
    ).toEqual(['machine_start', 'machine_start']);
    expect(
      callTimeline(scenarioById('machine'), 'DetectMessageEnd')
        .slice(2)
        .map((s) => s.answeredBy),
    ).toEqual(['machine_end_beep', 'machine_end_beep']);
    expect(
      callTimeline(scenarioById('goal'), 'Enable')
        .slice(2)
        .map((s) => s.answeredBy),
    ).toEqual(['human', 'human']);
    expect(callTimeline(scenarioById('machine'), null).some((s) => s.answeredBy)).toBe(false);
  });

  it('messages: delivered by default; 555-0123 fails (30008); 555-0121 is undelivered (30003); 555-0160 fails with a carrier error (30007) though its calls go through', () => {
    expect(messageTimeline(scenarioFor('+12125550160'))).toEqual([
      { at: 1, status: 'failed', errorCode: 30007, errorMessage: 'Message filtered by the carrier' },
    ]);
    expect(scenarioFor('+12125550160').carrier).toBe('human');
    expect(messageTimeline(scenarioFor('+12125550100'))).toEqual([
      { at: 1, status: 'sent' },
      { at: 2, status: 'delivered' },
    ]);
    expect(messageTimeline(scenarioFor('+12125550123'))).toEqual([{ at: 1, status: 'failed', errorCode: 30008, errorMessage: 'Unknown error' }]);
    expect(messageTimeline(scenarioFor('+12125550121')).map((s) => [s.status, s.errorCode])).toEqual([
      ['sent', undefined],
      ['undelivered', 30003],
    ]);
  });
});

describe('timeline scale', () => {
  it('SANDBOX_STEP_MS is whole milliseconds per step, 0 to an hour; anything else is the default', () => {
    expect(stepMsFrom(undefined)).toBe(DEFAULT_STEP_MS);
    expect(stepMsFrom('25')).toBe(25);
    expect(stepMsFrom(' 0 ')).toBe(0);
    expect(stepMsFrom('3600000')).toBe(3_600_000);
    for (const bad of ['', '-5', '1.5', 'fast', '3600001', '1e3']) expect(stepMsFrom(bad)).toBe(DEFAULT_STEP_MS);
  });

  it('SQS delays whole seconds up to 900; the worker waits out the rest', () => {
    expect(delaySecondsFor(1_000, 1_000)).toBe(0);
    expect(delaySecondsFor(1_999, 1_000)).toBe(0);
    expect(delaySecondsFor(3_500, 1_000)).toBe(2);
    expect(delaySecondsFor(500, 1_000)).toBe(0); // overdue: now
    expect(delaySecondsFor(10_000_000, 0)).toBe(MAX_DELAY_SECONDS);
  });
});

describe('the Calls create form, as Twilio checks it', () => {
  const ok: [string, string][] = [
    ['To', '+12125550100'],
    ['From', '+14155550100'],
    ['Url', 'https://api.example/twiml'],
  ];
  const code = (pairs: [string, string][]) => {
    const r = readCallForm(pairs);
    return 'error' in r ? (r.error.body as { code: number }).code : 0;
  };

  it('reads repeated and space-separated StatusCallbackEvent, methods, machine detection and timeout', () => {
    const r = readCallForm([
      ...ok,
      ['StatusCallbackEvent', 'initiated ringing'],
      ['StatusCallbackEvent', 'answered'],
      ['StatusCallbackEvent', 'answered'],
      ['MachineDetection', 'Enable'],
      ['Timeout', '20'],
      ['Method', 'get'],
    ]);
    expect('form' in r && r.form).toMatchObject({
      events: ['initiated', 'ringing', 'answered'],
      machineDetection: 'Enable',
      timeout: 20,
      method: 'GET',
      statusCallbackMethod: 'POST',
      statusCallback: null,
    });
    expect('form' in (readCallForm(ok) as object) && (readCallForm(ok) as { form: { events: string[]; timeout: number } }).form).toMatchObject({
      events: [],
      timeout: 60,
    });
  });

  it.each([
    [
      [
        ['From', '+14155550100'],
        ['Url', 'https://a.example/t'],
      ],
      21201,
    ],
    [
      [
        ['To', '555-0100'],
        ['From', '+14155550100'],
        ['Url', 'https://a.example/t'],
      ],
      21211,
    ],
    [
      [
        ['To', '+12125550100'],
        ['Url', 'https://a.example/t'],
      ],
      21213,
    ],
    [
      [
        ['To', '+12125550100'],
        ['From', '+14155550100'],
      ],
      21205,
    ],
    [
      [
        ['To', '+12125550100'],
        ['From', '+14155550100'],
        ['Url', 'javascript:alert(1)'],
      ],
      21205,
    ],
    [[...ok, ['Method', 'PUT']], 21401],
    [[...ok, ['StatusCallback', 'not a url']], 21609],
    [[...ok, ['StatusCallbackEvent', 'hangup']], 21626],
    [[...ok, ['MachineDetection', 'Maybe']], 20001],
    [[...ok, ['Timeout', '0']], 20001],
    [[...ok, ['Timeout', '601']], 20001],
    [[...ok, ['Timeout', 'soon']], 20001],
  ] as [[string, string][], number][])('%j → %i', (pairs, expected) => {
    expect(code(pairs)).toBe(expected);
  });
});
