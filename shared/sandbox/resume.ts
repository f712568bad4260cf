/**
 * Picking the sandbox carrier's timelines up again after the local runtime restarts. On AWS a
 * timeline lives in SQS (each step schedules the next before it is claimed) and outlives any
 * worker; locally the queue lives in the process, and a crash loses every scheduled step. At
 * start-up, before the workers poll, every call and text with steps left is scheduled again
 * from the step it reached. A call's remaining steps come no later than one step apart from
 * now (resumedPlan): a final callback held for a relay conversation that died with the process
 * comes promptly, and the call simply ends. Steps are claimed conditionally, so a step that
 * was somehow still queued plays once.
 */
import { sandboxTimelineItems } from '../repositories/sandbox-calls.js';
import { getSandboxCall, replanSandboxCall } from './calls.js';
import { getSandboxMessage } from './messages.js';
import { resumedPlan } from './timeline.js';
import { scheduleStep } from './timeline-queue.js';

export interface ResumedTimelines {
  calls: number;
  messages: number;
}

/** Schedules the next step of every sandbox call and text whose timeline is unfinished; how many of each. */
export async function resumeSandboxTimelines(now = Date.now()): Promise<ResumedTimelines> {
  const resumed: ResumedTimelines = { calls: 0, messages: 0 };
  for (const item of await sandboxTimelineItems()) {
    if (item.type === 'sandbox_call' && (await resumeCall(item.sid, now))) resumed.calls++;
    if (item.type === 'sandbox_message' && (await resumeMessage(item.sid))) resumed.messages++;
  }
  return resumed;
}

async function resumeCall(sid: string, now: number): Promise<boolean> {
  const call = await getSandboxCall(sid);
  if (!call || call.step >= call.plan.length) return false;
  const plan = resumedPlan(call.plan, call.step, now, call.step_ms);
  if (!(await replanSandboxCall(call, plan, new Date(now).toISOString()))) return false; // moved on meanwhile: it is being played
  await scheduleStep('call', sid, call.step, plan[call.step]!.due_at, now);
  return true;
}

async function resumeMessage(sid: string): Promise<boolean> {
  const sms = await getSandboxMessage(sid);
  const next = sms?.plan[sms.step];
  if (!sms || !next) return false;
  await scheduleStep('message', sid, sms.step, next.due_at);
  return true;
}
