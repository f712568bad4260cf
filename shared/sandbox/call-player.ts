/**
 * Plays one step of a sandbox call's timeline (the sandbox-timeline worker's call half):
 * schedule the next step, claim this one (conditional: a redelivered message or a second
 * worker finds it taken and does nothing), post the signed status callback if the caller
 * asked for that event (the final status always), and on answer fetch the call's TwiML and
 * follow it. Callbacks are posted at most once, as Twilio posts them (no retries).
 */
import { logger } from '../observability.js';
import type { SandboxTimelineMessage } from '../schemas/queue-bodies.js';
import { getSandboxAccount, openSandboxAuthToken } from './accounts.js';
import {
  claimCallStep,
  getSandboxCall,
  moveCallEnd,
  type PlanStep,
  recordAnswer,
  recordRelayRun,
  recordRuntimeRun,
  type SandboxCall,
  type StepChanges,
} from './calls.js';
import { twilioDate } from './numbers.js';
import { type RelayTarget, relayRunOf, relayTargetOf } from './relay-caller.js';
import { outboundCallerSource, playRelayLeg } from './relay-contact.js';
import { playSandboxRuntime } from './runtime.js';
import { needsScriptedAgent, type Scenario, scenarioById } from './scenarios.js';
import { RELAY_HOLD_MS } from './timeline.js';
import { scheduleStep } from './timeline-queue.js';
import { type CarrierRequest, followTwiml, type PathStep, signedCarrierRequest } from './verb-runner.js';
import { waitUntilDue } from './wait-until-due.js';

const changesFor = (step: PlanStep, call: SandboxCall, now: string): StepChanges => {
  const posts = call.status_callback !== null && (step.event === 'completed' || call.status_callback_events.includes(step.event));
  switch (step.event) {
    case 'initiated':
      return { posts };
    case 'ringing':
      return { posts, status: 'ringing' };
    case 'answered':
      return { posts, status: 'in-progress', answered_by: step.answeredBy ?? null, start_time: now };
    case 'completed':
      // A hang-up already wrote when the call ended; the final step keeps it.
      return { posts, status: step.callStatus as SandboxCall['status'], ...(call.end_time ? {} : { end_time: now, duration: step.durationSeconds ?? 0 }) };
  }
};

/** The parameters Twilio sends with every request about an outbound call. */
const callParams = (call: SandboxCall): Record<string, string> => ({
  AccountSid: call.account_sid,
  ApiVersion: '2010-04-01',
  CallSid: call.sid,
  Direction: 'outbound-api',
  From: call.from,
  Caller: call.from,
  To: call.to,
  Called: call.to,
});

function statusParams(call: SandboxCall, step: PlanStep, sequence: number, now: Date): Record<string, string> {
  return {
    ...callParams(call),
    CallStatus: step.callStatus,
    CallbackSource: 'call-progress-events',
    Timestamp: twilioDate(now.toISOString()),
    SequenceNumber: String(sequence),
    ...(step.answeredBy ? { AnsweredBy: step.answeredBy } : {}),
    ...(step.event === 'completed' ? { CallDuration: String(step.durationSeconds ?? 0), SipResponseCode: String(step.sipResponseCode ?? 200) } : {}),
  };
}

export async function playCallStep(message: SandboxTimelineMessage): Promise<void> {
  const first = await getSandboxCall(message.sid);
  const planned = first?.plan[message.step];
  if (!first || !planned || first.step > message.step) return; // gone, or already played
  if (!(await waitUntilDue('call', message, planned.due_at))) return;

  const call = await getSandboxCall(message.sid);
  const step = call?.plan[message.step];
  if (!call || !step || call.step > message.step) return;
  if (call.step < message.step) {
    // Its predecessor was scheduled ahead of its own claim and has not been played yet.
    await scheduleStep('call', call.sid, message.step, Date.now() + 1000);
    return;
  }
  const next = call.plan[call.step + 1];
  // Scheduled before the claim, so a crash between the two cannot strand the call.
  if (next) await scheduleStep('call', call.sid, call.step + 1, next.due_at);
  const now = new Date();
  const changes = changesFor(step, call, now.toISOString());
  const claimed = await claimCallStep(call, changes, now.toISOString());
  if (!claimed) return;

  const account = await getSandboxAccount(call.account_sid);
  if (!account) return;
  const authToken = await openSandboxAuthToken(account);
  if (changes.posts) await postStatus(authToken, claimed, step, claimed.sequence - 1, now);
  if (step.event === 'answered') await answer(authToken, claimed, step);
}

async function postStatus(authToken: string, call: SandboxCall, step: PlanStep, sequence: number, now: Date): Promise<void> {
  try {
    const res = await signedCarrierRequest(authToken, {
      url: call.status_callback!,
      method: call.status_callback_method,
      params: statusParams(call, step, sequence, now),
    });
    if (res.status >= 400) logger.warn('sandbox status callback refused', { call_sid: call.sid, status: res.status });
  } catch (err) {
    logger.warn('sandbox status callback failed', { call_sid: call.sid, error: (err as Error).name });
  }
}

/**
 * Fetch the call's TwiML and follow it; a call the TwiML ends (no Stream) hangs up a step later.
 * A call handed to our voice runtime's relay (<Connect><ConversationRelay>) hears the test
 * number's contact talk to the real runtime (relay-caller.ts); a number that needs a
 * misbehaving agent, or a <Connect><Stream>, hears the scripted runtime, posted through our
 * runtime route within the scenario's talk time (its beats spread over all but the last talk
 * step, so they land before the final status callback).
 */
async function answer(authToken: string, call: SandboxCall, step: PlanStep): Promise<void> {
  const request = async (req: CarrierRequest) => {
    try {
      return await signedCarrierRequest(authToken, req);
    } catch {
      return { status: 0, text: '' }; // unreachable: Twilio's 11200, the call ends
    }
  };
  const first: CarrierRequest = {
    url: call.url,
    method: call.method,
    params: { ...callParams(call), CallStatus: 'in-progress', ...(step.answeredBy ? { AnsweredBy: step.answeredBy } : {}) },
  };
  const followed = await followTwiml({ first, request, callSid: call.sid });
  const earlierEnd = followed.outcome === 'streaming' ? undefined : { dueAt: Date.now() + call.step_ms, durationSeconds: spokenSeconds(followed.path) };
  if (await recordAnswer(call, followed, earlierEnd)) await scheduleStep('call', call.sid, call.plan.length - 1, earlierEnd!.dueAt);
  const scenario = scenarioById(call.scenario);
  const relay = relayTargetOf(followed);
  if (relay && !needsScriptedAgent(scenario)) {
    await talkOverRelay(authToken, call, relay, scenario, request);
    return;
  }
  if (followed.outcome === 'streaming') {
    const talkMs = call.step_ms * Math.max(1, scenario.talkSteps - 1);
    const beats = Math.max(1, scenario.talkSteps * 2);
    const run = await playSandboxRuntime({ stream: followed.stream, script: { kind: 'outbound', scenario }, pauseMs: Math.floor(talkMs / beats) });
    if (run.status !== 'played')
      logger.info('sandbox runtime did not play the conversation', { call_sid: call.sid, status: run.status, http_status: run.http_status });
    await recordRuntimeRun(call.sid, run);
  }
}

/**
 * The test number's contact talks to the runtime over the relay. The final status callback
 * waits for the conversation (held, at most RELAY_HOLD_MS), then comes when planned or at once
 * if the conversation ran past it, with the scenario's nominal CallDuration either way; a
 * hang-up through the API since answering has rewritten the plan, and is left alone.
 */
async function talkOverRelay(
  authToken: string,
  call: SandboxCall,
  relay: RelayTarget,
  scenario: Scenario,
  request: (req: CarrierRequest) => Promise<{ status: number; text: string }>,
): Promise<void> {
  const final = call.plan[call.plan.length - 1]!;
  const durationSeconds = final.durationSeconds ?? scenario.durationSeconds;
  const held = await moveCallEnd(call, { dueAt: Date.now() + RELAY_HOLD_MS, durationSeconds });
  try {
    const source = await outboundCallerSource(scenario, relay.parameters);
    if (source) {
      const result = await playRelayLeg({
        target: relay,
        authToken,
        leg: { callSid: call.sid, accountSid: call.account_sid, from: call.from, to: call.to, direction: 'outbound-api' },
        source,
        request,
        callParams: callParams(call),
        pauseMs: Math.floor(call.step_ms / 2),
      });
      await recordRelayRun(call.sid, relayRunOf(result));
    }
  } catch (err) {
    logger.warn('sandbox relay conversation failed', { call_sid: call.sid, error: (err as Error).name });
  }
  if (!held) return;
  const dueAt = Math.max(Date.now(), final.due_at);
  if (await moveCallEnd({ ...call, revision: call.revision + 1 }, { dueAt, durationSeconds }))
    await scheduleStep('call', call.sid, call.plan.length - 1, dueAt);
}

/** How long the TwiML took to play, roughly (for CallDuration when it ends the call itself). */
export function spokenSeconds(path: PathStep[]): number {
  const words = (text: string) => Math.ceil(text.split(/\s+/).filter(Boolean).length / 2.5);
  let seconds = 0;
  for (const p of path) {
    if (p.verb === 'Say') seconds += words(p.text);
    else if (p.verb === 'Gather') seconds += p.prompt.reduce((s, t) => s + words(t), 0);
    else if (p.verb === 'Pause') seconds += p.seconds;
    else if (p.verb === 'Play' || p.verb === 'Record') seconds += 10;
  }
  return Math.max(1, seconds);
}
