/**
 * The sandbox carrier's outbound calls (Twilio's Call resource). A call carries its whole
 * timeline (`plan`, absolute due times) and how far it has been played (`step`). Every
 * change is conditional on `revision`, so a redelivered timeline message, a hang-up racing
 * a step, or two workers at once apply each step exactly once.
 */
import type { RelayRun } from './relay-caller.js';
import type { RuntimeRun } from './runtime.js';
import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { friendlyName, twilioDate } from './numbers.js';
import type { CallForm } from './call-form.js';
import { scenarioFor, type ScenarioId } from './scenarios.js';
import { callTimeline, type CallEvent, type CallStep, type FinalCallStatus, type MachineDetection } from './timeline.js';
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

export async function putSandboxCall(call: SandboxCall): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...platformKeys.sandboxCall(call.sid), ...platformKeys.sandboxCallIndex(call.account_sid, call.created_at, call.sid), type: 'sandbox_call', ...call },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function deleteSandboxCall(sid: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: platformKeys.sandboxCall(sid) }));
}

const strip = (item: Record<string, unknown> | undefined): SandboxCall | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, gsi1pk: _g, gsi1sk: _s, type: _t, ...call } = item;
  return call as unknown as SandboxCall;
};

/** A call by SID; with `accountSid`, only that account's (another account's call is not found, as on Twilio). */
export async function getSandboxCall(sid: string, accountSid?: string): Promise<SandboxCall | undefined> {
  if (!SID_PATTERN.test(sid)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.sandboxCall(sid), ConsistentRead: true }));
  const call = strip(out.Item);
  return call && (accountSid === undefined || call.account_sid === accountSid) ? call : undefined;
}

/** Every call an account placed, oldest first (eventually consistent: the index). */
export async function listSandboxCalls(accountSid: string): Promise<SandboxCall[]> {
  const { gsi1pk } = platformKeys.sandboxCallIndex(accountSid, '', 'x');
  const calls: SandboxCall[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ TableName: tableName(), IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': gsi1pk }, ExclusiveStartKey: start }));
    calls.push(...(out.Items ?? []).map((i) => strip(i)!));
    start = out.LastEvaluatedKey;
  } while (start);
  return calls;
}

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
export async function claimCallStep(call: SandboxCall, changes: StepChanges, now: string): Promise<SandboxCall | undefined> {
  const sets = ['#step = :next', '#revision = :rev1', '#sequence = #sequence + :bump', 'updated_at = :now'];
  const values: Record<string, unknown> = { ':step': call.step, ':rev': call.revision, ':next': call.step + 1, ':rev1': call.revision + 1, ':bump': changes.posts ? 1 : 0, ':now': now };
  const names: Record<string, string> = { '#step': 'step', '#revision': 'revision', '#sequence': 'sequence' };
  for (const field of ['status', 'answered_by', 'start_time', 'end_time', 'duration'] as const) {
    if (changes[field] === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = changes[field];
    sets.push(`#${field} = :${field}`);
  }
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxCall(call.sid),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: '#step = :step AND #revision = :rev',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip(out.Attributes);
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
}

/**
 * What answering did: the TwiML path and the Stream (always recorded), and, when the TwiML
 * ended the call instead of streaming it, an earlier end (only if the plan is still the
 * one answered: a hang-up since then has already rewritten it).
 */
export async function recordAnswer(call: SandboxCall, followed: { path: PathStep[]; stream: SandboxCall['stream'] }, earlierEnd?: { dueAt: number; durationSeconds: number }): Promise<boolean> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: platformKeys.sandboxCall(call.sid),
      UpdateExpression: 'SET twiml_path = :p, #stream = :s',
      ExpressionAttributeNames: { '#stream': 'stream' },
      ExpressionAttributeValues: { ':p': followed.path, ':s': followed.stream },
    }),
  );
  if (!earlierEnd) return false;
  return moveCallEnd(call, earlierEnd);
}

/**
 * Move the call's final step (when it ends, and the CallDuration it reports), only if the
 * plan is still the one `call` read (`revision`): a hang-up since then has rewritten it.
 * True when moved (the revision is then one more).
 */
export async function moveCallEnd(call: Pick<SandboxCall, 'sid' | 'plan' | 'revision'>, end: { dueAt: number; durationSeconds: number }): Promise<boolean> {
  const last = call.plan.length - 1;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxCall(call.sid),
        UpdateExpression: `SET #plan[${last}].due_at = :d, #plan[${last}].durationSeconds = :secs, #revision = :rev1`,
        ConditionExpression: '#revision = :rev',
        ExpressionAttributeNames: { '#plan': 'plan', '#revision': 'revision' },
        ExpressionAttributeValues: { ':d': end.dueAt, ':secs': end.durationSeconds, ':rev': call.revision, ':rev1': call.revision + 1 },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** Replace the call's plan (its played steps unchanged), only if it is still the one `call` read; true when replaced. */
export async function replanSandboxCall(call: Pick<SandboxCall, 'sid' | 'revision'>, plan: PlanStep[], now: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxCall(call.sid),
        UpdateExpression: 'SET #plan = :plan, #revision = :rev1, updated_at = :now',
        ConditionExpression: '#revision = :rev',
        ExpressionAttributeNames: { '#plan': 'plan', '#revision': 'revision' },
        ExpressionAttributeValues: { ':plan': plan, ':rev': call.revision, ':rev1': call.revision + 1, ':now': now },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** Keep what the sandbox voice runtime reported on the call's stream (`no_such_call` when our API did not know the call). */
export const recordRuntimeRun = (sid: string, run: RuntimeRun): Promise<void> => setOnCall(sid, 'runtime', run);

/** Keep how the relay-played conversation went (its sessions, how each ended, the transcript). */
export const recordRelayRun = (sid: string, run: RelayRun): Promise<void> => setOnCall(sid, 'relay', run);

async function setOnCall(sid: string, name: 'runtime' | 'relay', value: unknown): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: platformKeys.sandboxCall(sid),
      UpdateExpression: 'SET #name = :v',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#name': name },
      ExpressionAttributeValues: { ':v': value },
    }),
  ).catch((err: unknown) => {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  });
}

/**
 * Twilio's update with Status: `completed` hangs up (a call not yet answered is canceled);
 * `canceled` cancels a queued or ringing call and leaves an answered one alone. The final
 * step replaces the rest of the plan, due now; an ended call is returned unchanged.
 * Returns the call and whether its final step still has to be played.
 */
export async function hangUpSandboxCall(sid: string, accountSid: string, requested: 'completed' | 'canceled', now: Date): Promise<{ call: SandboxCall; changed: boolean } | undefined> {
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
    try {
      const out = await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: platformKeys.sandboxCall(sid),
          UpdateExpression: 'SET #plan = :plan, #status = :status, end_time = :end, #duration = :duration, #revision = :rev1, updated_at = :now',
          ConditionExpression: '#revision = :rev',
          ExpressionAttributeNames: { '#plan': 'plan', '#status': 'status', '#duration': 'duration', '#revision': 'revision' },
          ExpressionAttributeValues: { ':plan': plan, ':status': final.callStatus, ':end': now.toISOString(), ':duration': duration, ':rev': call.revision, ':rev1': call.revision + 1, ':now': now.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { call: strip(out.Attributes)!, changed: true };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
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
});
