/**
 * The sandbox carrier's outbound calls (Twilio's Call resource). A call carries its whole
 * timeline (`plan`, absolute due times) and how far it has been played (`step`). Every
 * change is conditional on `revision`, so a redelivered timeline message, a hang-up racing
 * a step, or two workers at once apply each step exactly once.
 */

import { randomBytes } from 'node:crypto';
import {
  claimSandboxCallStep,
  deleteSandboxCallItem,
  endSandboxCall,
  moveSandboxCallEnd,
  putSandboxCallItem,
  readSandboxCall,
  replaceSandboxCallPlan,
  sandboxCallsOfAccount,
  setOnSandboxCall,
  setSandboxCallAnswer,
} from '../repositories/sandbox-calls.js';
import type { CallForm } from './call-form.js';
import { friendlyName, twilioDate } from './numbers.js';
import type { RelayRun } from './relay-caller.js';
import type { RuntimeRun } from './runtime.js';
import { type ScenarioId, scenarioFor } from './scenarios.js';
import { type CallEvent, type CallStep, callTimeline, type FinalCallStatus, type MachineDetection } from './timeline.js';
import type { PathStep } from './verb-runner.js';

export type SandboxCallStatus = 'queued' | 'ringing' | 'in-progress' | FinalCallStatus;

export type PlanStep = CallStep & { due_at: number };

export interface SandboxCall {
  sid: string;
  account_sid: string;
  to: string;
  from: string;
  from_sid: string;
  url: string;
  method: 'GET' | 'POST';
  status_callback: string | null;
  status_callback_method: 'GET' | 'POST';
  status_callback_events: CallEvent[];
  machine_detection: MachineDetection;
  timeout: number;
  scenario: ScenarioId;
  status: SandboxCallStatus;
  answered_by: string | null;
  plan: PlanStep[];
  /** SANDBOX_STEP_MS when the call was placed: the timeline keeps its pace. */
  step_ms: number;
  /** Plan steps played so far (the index of the next one). */
  step: number;
  revision: number;
  /** Status callbacks posted so far (Twilio's SequenceNumber of the next one). */
  sequence: number;
  start_time: string | null;
  end_time: string | null;
  duration: number | null;
  /** What the TwiML did when the call was answered. */
  twiml_path: PathStep[] | null;
  /** The relay (or Stream) the call was handed to, with its parameters (the sandbox voice runtime reads them) and the relay's action URL. */
  stream: { url: string | null; parameters: Record<string, string>; action?: string | null } | null;
  /** What the sandbox voice runtime reported on the stream (absent until it played; shared/sandbox/runtime.ts). */
  runtime?: RuntimeRun;
  /** How the conversation went when the sandbox played the contact over ConversationRelay (shared/sandbox/relay-caller.ts). */
  relay?: RelayRun;
  created_at: string;
  updated_at: string;
}

export const newCallSid = () => `CA${randomBytes(16).toString('hex')}`;
const SID_PATTERN = /^CA[0-9a-f]{32}$/;
export const isFinal = (status: SandboxCallStatus) => !['queued', 'ringing', 'in-progress'].includes(status);

/** A new call, queued, with its whole timeline planned from the number called. */
export function planSandboxCall(form: CallForm, accountSid: string, fromSid: string, now: Date, stepMs: number): SandboxCall {
  const scenario = scenarioFor(form.to);
  const created = now.toISOString();
  return {
    sid: newCallSid(),
    account_sid: accountSid,
    to: form.to,
    from: form.from,
    from_sid: fromSid,
    url: form.url,
    method: form.method,
    status_callback: form.statusCallback,
    status_callback_method: form.statusCallbackMethod,
    status_callback_events: form.events,
    machine_detection: form.machineDetection,
    timeout: form.timeout,
    scenario: scenario.id,
    status: 'queued',
    answered_by: null,
    plan: callTimeline(scenario, form.machineDetection).map((s) => ({ ...s, due_at: now.getTime() + s.at * stepMs })),
    step_ms: stepMs,
    step: 0,
    revision: 0,
    sequence: 0,
    start_time: null,
    end_time: null,
    duration: null,
    twiml_path: null,
    stream: null,
    created_at: created,
    updated_at: created,
  };
}

export const putSandboxCall = (call: SandboxCall): Promise<void> => putSandboxCallItem(call);

export const deleteSandboxCall = (sid: string): Promise<void> => deleteSandboxCallItem(sid);

/** A call by SID; with `accountSid`, only that account's (another account's call is not found, as on Twilio). */
export async function getSandboxCall(sid: string, accountSid?: string): Promise<SandboxCall | undefined> {
  if (!SID_PATTERN.test(sid)) return undefined;
  const call = await readSandboxCall<SandboxCall>(sid);
  return call && (accountSid === undefined || call.account_sid === accountSid) ? call : undefined;
}

/** Every call an account placed, oldest first (eventually consistent: the index). */
export const listSandboxCalls = (accountSid: string): Promise<SandboxCall[]> => sandboxCallsOfAccount<SandboxCall>(accountSid);

export interface StepChanges {
  status?: SandboxCallStatus;
  answered_by?: string | null;
  start_time?: string;
  end_time?: string;
  duration?: number;
  /** The step posts a status callback (takes a sequence number). */
  posts: boolean;
}

/**
 * Marks plan step `call.step` played, if nobody else has (same step, same revision).
 * Returns the call as it now is, or undefined when the step was taken or the plan changed.
 */
export function claimCallStep(call: SandboxCall, changes: StepChanges, now: string): Promise<SandboxCall | undefined> {
  const { posts, status, answered_by, start_time, end_time, duration } = changes;
  return claimSandboxCallStep<SandboxCall>(call.sid, call, { status, answered_by, start_time, end_time, duration }, posts, now);
}

/**
 * What answering did: the TwiML path and the Stream (always recorded), and, when the TwiML
 * ended the call instead of streaming it, an earlier end (only if the plan is still the
 * one answered: a hang-up since then has already rewritten it).
 */
export async function recordAnswer(
  call: SandboxCall,
  followed: { path: PathStep[]; stream: SandboxCall['stream'] },
  earlierEnd?: { dueAt: number; durationSeconds: number },
): Promise<boolean> {
  await setSandboxCallAnswer(call.sid, followed.path, followed.stream);
  if (!earlierEnd) return false;
  return moveCallEnd(call, earlierEnd);
}

/**
 * Move the call's final step (when it ends, and the CallDuration it reports), only if the
 * plan is still the one `call` read (`revision`): a hang-up since then has rewritten it.
 * True when moved (the revision is then one more).
 */
export const moveCallEnd = (call: Pick<SandboxCall, 'sid' | 'plan' | 'revision'>, end: { dueAt: number; durationSeconds: number }): Promise<boolean> =>
  moveSandboxCallEnd(call.sid, call.plan.length - 1, call.revision, end);

/** Replace the call's plan (its played steps unchanged), only if it is still the one `call` read; true when replaced. */
export const replanSandboxCall = (call: Pick<SandboxCall, 'sid' | 'revision'>, plan: PlanStep[], now: string): Promise<boolean> =>
  replaceSandboxCallPlan(call.sid, call.revision, plan, now);

/** Keep what the sandbox voice runtime reported on the call's stream (`no_such_call` when our API did not know the call). */
export const recordRuntimeRun = (sid: string, run: RuntimeRun): Promise<void> => setOnSandboxCall(sid, 'runtime', run);

/** Keep how the relay-played conversation went (its sessions, how each ended, the transcript). */
export const recordRelayRun = (sid: string, run: RelayRun): Promise<void> => setOnSandboxCall(sid, 'relay', run);

/**
 * Twilio's update with Status: `completed` hangs up (a call not yet answered is canceled);
 * `canceled` cancels a queued or ringing call and leaves an answered one alone. The final
 * step replaces the rest of the plan, due now; an ended call is returned unchanged.
 * Returns the call and whether its final step still has to be played.
 */
export async function hangUpSandboxCall(
  sid: string,
  accountSid: string,
  requested: 'completed' | 'canceled',
  now: Date,
): Promise<{ call: SandboxCall; changed: boolean } | undefined> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const call = await getSandboxCall(sid, accountSid);
    if (!call) return undefined;
    if (isFinal(call.status) || (requested === 'canceled' && call.status === 'in-progress')) return { call, changed: false };
    const answered = call.status === 'in-progress';
    const duration = answered && call.start_time ? Math.max(1, Math.ceil((now.getTime() - Date.parse(call.start_time)) / 1000)) : 0;
    const final: PlanStep = {
      event: 'completed',
      at: call.plan[call.step]?.at ?? 0,
      callStatus: answered ? 'completed' : 'canceled',
      ...(call.answered_by ? { answeredBy: call.answered_by } : {}),
      sipResponseCode: answered ? 200 : 487,
      durationSeconds: duration,
      due_at: now.getTime(),
    };
    const plan = [...call.plan.slice(0, call.step), final];
    const ended = await endSandboxCall<SandboxCall>(sid, call.revision, { plan, status: final.callStatus!, endTime: now.toISOString(), duration });
    if (ended) return { call: ended, changed: true };
  }
  throw new Error(`sandbox call ${sid}: the hang-up kept losing to the timeline`);
}

/** Twilio's JSON shape of a Call. */
export const presentSandboxCall = (c: SandboxCall) => ({
  sid: c.sid,
  account_sid: c.account_sid,
  parent_call_sid: null,
  to: c.to,
  to_formatted: friendlyName(c.to),
  from: c.from,
  from_formatted: friendlyName(c.from),
  phone_number_sid: c.from_sid,
  status: c.status,
  direction: 'outbound-api',
  answered_by: c.answered_by,
  start_time: c.start_time ? twilioDate(c.start_time) : null,
  end_time: c.end_time ? twilioDate(c.end_time) : null,
  duration: c.duration === null ? null : String(c.duration),
  price: null,
  price_unit: 'USD',
  caller_name: null,
  api_version: '2010-04-01',
  date_created: twilioDate(c.created_at),
  date_updated: twilioDate(c.updated_at),
  uri: `/2010-04-01/Accounts/${c.account_sid}/Calls/${c.sid}.json`,
  // Not Twilio's: the instant the dial was stamped, to the millisecond (date_created has seconds), so a caller can free its cps lane from it.
  date_created_ms: Date.parse(c.created_at),
});
