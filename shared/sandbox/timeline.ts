/**
 * The carrier's timelines, pure: which status callbacks a sandbox call or message produces,
 * in order, at which step. Steps are turned into time by one setting, SANDBOX_STEP_MS
 * (milliseconds per step, default 500), so a whole answered call plays in a few seconds
 * locally and in tens of milliseconds in tests.
 */
import { SCENARIOS, type Scenario } from './scenarios.js';

/** Twilio's StatusCallbackEvent names; `completed` is the final event, whatever the final status. */
export const CALL_EVENTS = ['initiated', 'ringing', 'answered', 'completed'] as const;
export type CallEvent = (typeof CALL_EVENTS)[number];

export const FINAL_CALL_STATUSES = ['completed', 'busy', 'no-answer', 'failed', 'canceled'] as const;
export type FinalCallStatus = (typeof FINAL_CALL_STATUSES)[number];

export interface CallStep {
  event: CallEvent;
  /** Steps after the call was created. */
  at: number;
  /** CallStatus as the callback reports it (`initiated`, `ringing`, `in-progress`, or the final status). */
  callStatus: 'initiated' | 'ringing' | 'in-progress' | FinalCallStatus;
  /** Present only when machine detection was asked for. */
  answeredBy?: string;
  sipResponseCode?: number;
  /** Final step: CallDuration in seconds. */
  durationSeconds?: number;
}

/** Ringing before "no-answer" (Twilio rings for the request's Timeout; here a fixed number of steps). */
export const NO_ANSWER_RING_STEPS = 4;
/** Ringing before a pick-up. */
export const ANSWER_AFTER_STEPS = 2;

export type MachineDetection = 'Enable' | 'DetectMessageEnd' | null;

const answeredBy = (scenario: Scenario, md: MachineDetection) => {
  if (!md) return {};
  if (scenario.carrier === 'machine') return { answeredBy: md === 'DetectMessageEnd' ? 'machine_end_beep' : 'machine_start' };
  return { answeredBy: 'human' };
};

export function callTimeline(scenario: Scenario, machineDetection: MachineDetection): CallStep[] {
  const initiated: CallStep = { event: 'initiated', at: 0, callStatus: 'initiated' };
  const ringing: CallStep = { event: 'ringing', at: 1, callStatus: 'ringing' };
  switch (scenario.carrier) {
    case 'busy':
      return [initiated, { event: 'completed', at: 1, callStatus: 'busy', sipResponseCode: 486, durationSeconds: 0 }];
    case 'failed':
      return [initiated, { event: 'completed', at: 1, callStatus: 'failed', sipResponseCode: 503, durationSeconds: 0 }];
    case 'no_answer':
      return [initiated, ringing, { event: 'completed', at: 1 + NO_ANSWER_RING_STEPS, callStatus: 'no-answer', sipResponseCode: 487, durationSeconds: 0 }];
    case 'human':
    case 'machine': {
      const answerAt = 1 + ANSWER_AFTER_STEPS;
      const by = answeredBy(scenario, machineDetection);
      return [
        initiated,
        ringing,
        { event: 'answered', at: answerAt, callStatus: 'in-progress', ...by },
        {
          event: 'completed',
          at: answerAt + scenario.talkSteps,
          callStatus: 'completed',
          ...by,
          sipResponseCode: 200,
          durationSeconds: scenario.durationSeconds,
        },
      ];
    }
  }
}

export interface MessageStep {
  at: number;
  /** MessageStatus as the callback reports it. */
  status: 'sent' | 'delivered' | 'undelivered' | 'failed';
  errorCode?: number;
  errorMessage?: string;
}

export function messageTimeline(scenario: Scenario): MessageStep[] {
  const fate = scenario.message;
  if (fate.status === 'delivered')
    return [
      { at: 1, status: 'sent' },
      { at: 2, status: 'delivered' },
    ];
  const failure = { status: fate.status, errorCode: fate.errorCode, errorMessage: fate.errorMessage };
  return fate.status === 'failed'
    ? [{ at: 1, ...failure }]
    : [
        { at: 1, status: 'sent' },
        { at: 2, ...failure },
      ];
}

export const DEFAULT_STEP_MS = 500;
/** An hour per step is already absurd; more is a typo. */
const MAX_STEP_MS = 3_600_000;

/** SANDBOX_STEP_MS as milliseconds per step: a whole number 0…3,600,000; anything else is the default. */
export function stepMsFrom(value: string | undefined): number {
  if (value === undefined || !/^\d+$/.test(value.trim())) return DEFAULT_STEP_MS;
  const ms = Number(value.trim());
  return ms <= MAX_STEP_MS ? ms : DEFAULT_STEP_MS;
}

export const sandboxStepMs = (): number => stepMsFrom(process.env.SANDBOX_STEP_MS);

/**
 * A timeline picked up again after the process that played it died (pure): the steps from
 * `from` on keep their planned instants, but none is later than one step per remaining step
 * from `now` — a final callback held for a conversation that died with the process (or any
 * far-off step) comes promptly instead of at its hold. Past-due steps stay past due (they
 * play at once, in order).
 */
export function resumedPlan<S extends { due_at: number }>(plan: readonly S[], from: number, now: number, stepMs: number): S[] {
  return plan.map((step, i) => (i < from ? step : { ...step, due_at: Math.min(step.due_at, now + (i - from + 1) * Math.max(stepMs, 1)) }));
}

/** Longest the final status callback waits for a relay conversation (a worker lost mid-call ends the call then). */
export const RELAY_HOLD_MS = 120_000;

/**
 * The longest a sandbox call can stay unfinished at `stepMs` per step (the unfinished-call
 * reconciler's bound for the sandbox carrier): the longest scenario's timeline plus the
 * longest a relay conversation holds the final callback.
 */
export function longestSandboxCallMs(stepMs: number): number {
  const ring = 1 + Math.max(ANSWER_AFTER_STEPS, NO_ANSWER_RING_STEPS);
  return (ring + Math.max(0, ...SCENARIOS.map((s) => s.talkSteps))) * stepMs + RELAY_HOLD_MS;
}
