/**
 * The sandbox voice runtime. When the sandbox carrier follows our TwiML to
 * <Connect><ConversationRelay url=…> (or a <Stream>) with a token, nobody real is on the
 * line: this plays the voice runtime's part instead, reporting a scripted conversation to our own runtime route
 * (POST /runtime/v1/calls/{call_id}/events) with the Stream token, exactly as a real runtime
 * would — the route cannot tell them apart.
 *
 *   inbound calls  → the caller's script (shared/sandbox/booking-script.ts: enquiry, booking)
 *   outbound calls → the test number's scenario (shared/sandbox/scenarios.ts + conversation.ts)
 *
 * The conversation is posted in beats (a contact turn and what follows it), `pauseMs` apart,
 * so the call lives through in_conversation in real time on the SANDBOX_STEP_MS scale. Event
 * ids are derived from the script (`sbx-<seq>`), so a replayed timeline step stores nothing
 * twice. A call the route does not know (404: e.g. an outbound call placed without a call
 * record) ends the run as `no_such_call`; any other refusal as `refused`; never a throw.
 */

import { retrievePassages } from '../knowledge/pack-index.js';
import { getTemplate } from '../repositories/agent-templates.js';
import { getAgentVersion } from '../repositories/agents.js';
import { getCall } from '../repositories/calls.js';
import type { OUTCOME_TYPES } from '../schemas/agent-templates.js';
import type { OutcomeBody } from '../schemas/runtime-events.js';
import { type InboundScript, inboundScriptEvents } from './booking-script.js';
import { speakMs } from './caller-scripts.js';
import { type CallQuestionView, conversationEvents, PACK_QUESTION, type PinnedAgentView, type SequencedEvent } from './conversation.js';
import type { Scenario } from './scenarios.js';

type OutcomeType = (typeof OUTCOME_TYPES)[number];

export type RuntimeStatus = 'played' | 'no_such_call' | 'refused' | 'external' | 'no_token' | 'nothing_to_play' | 'failed';

export interface RuntimeRun {
  status: RuntimeStatus;
  call_id: string | null;
  script: string | null;
  events_sent: number;
  /** The route's answer when it refused (404 for no_such_call). */
  http_status?: number;
  code?: string;
}

/** A runtime event as posted (the route's request shape; JSON-ready). */
export type PostedEvent = Record<string, unknown> & { id: string; type: string; at: string };

/** Where our own runtime is served: the ConversationRelay WebSocket, and the older media-stream path. */
const RUNTIME_PATHS = ['/runtime/v1/relay', '/runtime/v1/stream'];

/**
 * Where the runtime reports for a call: beside the relay, when the relay is ours
 * (ws(s)://<api>/runtime/v1/relay?token=… → http(s)://<api>/runtime/v1/calls/{id}/events;
 * the query is ignored). A relay elsewhere belongs to a real runtime: the sandbox plays
 * nothing (null).
 */
export function eventsUrlFor(relayUrl: string | null, callId: string): string | null {
  if (!relayUrl) return null;
  let url: URL;
  try {
    url = new URL(relayUrl);
  } catch {
    return null;
  }
  const path = RUNTIME_PATHS.find((p) => url.pathname.endsWith(p));
  if (!['ws:', 'wss:'].includes(url.protocol) || !path) return null;
  const base = url.pathname.slice(0, -path.length);
  return `${url.protocol === 'wss:' ? 'https:' : 'http:'}//${url.host}${base}/runtime/v1/calls/${encodeURIComponent(callId)}/events`;
}

/** What a Stream token says it is for (read, not verified: the runtime route verifies it). */
export function peekStreamClaims(token: string | undefined): { tenant_id: string; call_id: string; agent_version_id: string } | null {
  const payload = token?.split('.')[1];
  if (!payload) return null;
  try {
    const c = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    return typeof c.tenant_id === 'string' && typeof c.call_id === 'string' && typeof c.agent_version_id === 'string'
      ? { tenant_id: c.tenant_id, call_id: c.call_id, agent_version_id: c.agent_version_id }
      : null;
  } catch {
    return null;
  }
}

/* ---- the pure mapping: a scripted conversation → runtime events ---- */

export interface MappingInput {
  /** When the stream started (the first event's time). */
  start: Date;
  /** Whether the call reaches the pinned version's goal. */
  goalReached: boolean;
  /** The pinned version's outcome type, when known: an outcome of another type is reported as `none`. */
  outcomeType: OutcomeType | null;
}

const CONFIRMED_TOOLS = new Set(['book_meeting', 'confirm_shift']);
const id = (seq: number, suffix = '') => `sbx-${seq}${suffix}`;

function outcomeOf(tool: string, args: Record<string, unknown>, actionId: string, goal: boolean): OutcomeBody | null {
  switch (tool) {
    case 'book_meeting': {
      const appointment = (args.appointment ?? {}) as { starts_at?: string; duration_minutes?: number };
      return {
        outcome_type: 'appointment',
        goal_reached: goal,
        status: args.outcome === 'booked' ? 'booked' : 'not_booked',
        ...(appointment.starts_at ? { starts_at: appointment.starts_at } : {}),
        ...(appointment.duration_minutes ? { duration_minutes: appointment.duration_minutes } : {}),
        action_id: actionId,
      };
    }
    case 'confirm_shift':
    case 'record_shift_response':
      return {
        outcome_type: 'shift_confirmation',
        goal_reached: goal,
        response: args.response === 'confirmed' ? 'confirmed' : args.response === 'tentative' ? 'tentative' : 'declined',
      };
    case 'record_survey_answer':
      return {
        outcome_type: 'survey_response',
        goal_reached: goal,
        complete: args.complete === true,
        answers: Object.fromEntries(Object.entries((args.answers ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)])),
      };
    case 'record_qualification':
      return { outcome_type: 'none', goal_reached: goal, summary: args.qualified ? 'Qualified' : 'Not qualified' };
    default:
      return null;
  }
}

/**
 * Map a scripted conversation (in order) onto the runtime route's events: turns with offsets
 * and the agent's latency, the disclosure, recorded responses, tool calls as conversation
 * actions (bookings and shift confirmations read back and confirmed), the outcome (from the
 * outcome tool, else `none`), the opt-out, usage totals and the hang-up. Pure.
 */
export function toRuntimeEvents(conversation: readonly SequencedEvent[], m: MappingInput): PostedEvent[] {
  const out: PostedEvent[] = [];
  let clock = 0;
  const at = () => new Date(m.start.getTime() + clock).toISOString();
  let outcome: PostedEvent | null = null;
  let agentChars = 0;
  let agentTurns = 0;
  const fits = (o: OutcomeBody) => o.outcome_type === 'none' || m.outcomeType === null || o.outcome_type === m.outcomeType;

  for (const e of conversation) {
    switch (e.type) {
      case 'turn': {
        const latency = e.speaker === 'agent' ? 300 + ((e.seq * 37) % 300) : undefined;
        if (latency) clock += latency;
        const start = clock;
        clock += speakMs(e.text);
        if (e.speaker === 'agent') {
          agentChars += e.text.length;
          agentTurns += 1;
        }
        out.push({
          id: id(e.seq),
          type: 'turn',
          at: new Date(m.start.getTime() + start).toISOString(),
          speaker: e.speaker === 'agent' ? 'agent' : 'contact',
          text: e.text,
          start_ms: start,
          end_ms: clock,
          ...(latency ? { latency_ms: latency } : {}),
          ...(e.type === 'turn' && e.passage_ids?.length ? { passage_ids: e.passage_ids } : {}),
        });
        clock += 200;
        break;
      }
      case 'disclosure':
        out.push({ id: id(e.seq), type: 'disclosure', at: at(), text: e.text });
        break;
      case 'response':
        out.push({ id: id(e.seq), type: 'recorded_response', at: at(), kind: e.source, question_id: e.id, value: e.value });
        break;
      case 'tool_call': {
        const actionId = `act-${e.seq}`;
        out.push({
          id: id(e.seq),
          type: 'conversation_action',
          at: at(),
          action_id: actionId,
          kind: e.tool,
          arguments: e.arguments,
          ...(CONFIRMED_TOOLS.has(e.tool) ? { action_confirmation: { kind: 'read_back', response: 'confirmed', method: 'voice' } } : {}),
        });
        const o = outcomeOf(e.tool, e.arguments, actionId, m.goalReached);
        if (o && !outcome) {
          outcome = { id: id(e.seq, '-outcome'), type: 'outcome', at: at(), outcome: fits(o) ? o : { outcome_type: 'none', goal_reached: m.goalReached } };
          out.push(outcome);
        }
        break;
      }
      case 'opt_out':
        out.push({ id: id(e.seq), type: 'opt_out', at: at(), reason: e.reason === 'wrong_person' ? 'wrong_person' : 'opt_out' });
        break;
      case 'hangup': {
        if (!outcome) {
          outcome = { id: id(e.seq, '-outcome'), type: 'outcome', at: at(), outcome: { outcome_type: 'none', goal_reached: m.goalReached } };
          out.push(outcome);
        }
        out.push({
          id: 'sbx-usage',
          type: 'usage',
          at: at(),
          audio_seconds: Math.round(clock) / 1000,
          characters_spoken: agentChars,
          llm_input_tokens: 400 * agentTurns,
          llm_cached_input_tokens: 300 * Math.max(0, agentTurns - 1),
          llm_output_tokens: Math.ceil(agentChars / 4),
          gpu_seconds: Math.round(clock / 4) / 1000,
        });
        out.push({ id: id(e.seq), type: 'hangup', at: at(), by: e.by === 'agent' ? 'agent' : 'contact' });
        break;
      }
    }
  }
  return out;
}

/** The beats a conversation is posted in: each contact turn starts a new batch (at most 25 events each). */
export function beats(events: readonly PostedEvent[]): PostedEvent[][] {
  const out: PostedEvent[][] = [];
  for (const e of events) {
    const last = out.at(-1);
    if (!last || (e.type === 'turn' && e.speaker === 'contact') || last.length >= 25) out.push([e]);
    else last.push(e);
  }
  return out;
}

/* ---- playing it against the route ---- */

const DEFAULT_VIEW: PinnedAgentView = { use_case: 'receptionist', objectives: [], tools: [], disclosure_config: {} };

/** The pinned version as the runtime would load it (and its template's outcome type). */
export async function pinnedView(
  tenantId: string,
  versionId: string,
): Promise<{ view: PinnedAgentView; outcomeType: OutcomeType | null; pack: { id: string; version: number } | null }> {
  const version = await getAgentVersion(tenantId, versionId).catch(() => undefined);
  if (!version) return { view: DEFAULT_VIEW, outcomeType: null, pack: null };
  const def = version.definition;
  const template = await getTemplate(version.definition.template_id, version.definition.template_version).catch(() => undefined);
  return {
    view: {
      use_case: version.definition.use_case,
      objectives: version.objectives,
      tools: version.definition.tools,
      disclosure_config: version.definition.disclosure_config,
    },
    outcomeType: template?.outcome_type ?? null,
    pack: def.knowledge_pack_id && def.knowledge_pack_version ? { id: def.knowledge_pack_id, version: def.knowledge_pack_version } : null,
  };
}

/** The questions the call asks (none when the call is unknown). */
export async function callQuestions(tenantId: string, callId: string): Promise<CallQuestionView[]> {
  const call = await getCall(tenantId, callId).catch(() => undefined);
  return ((call as unknown as { questions?: CallQuestionView[] } | undefined)?.questions ?? []) as CallQuestionView[];
}

export type RuntimeScript = { kind: 'inbound'; name: InboundScript } | { kind: 'outbound'; scenario: Scenario };

export interface PlayInput {
  stream: { url: string | null; parameters: Record<string, string> } | null;
  script: RuntimeScript;
  /** Pause between beats (ms). */
  pauseMs: number;
  now?: Date;
}

export async function playSandboxRuntime(input: PlayInput): Promise<RuntimeRun> {
  const scriptName = input.script.kind === 'inbound' ? input.script.name : input.script.scenario.id;
  const token = input.stream?.parameters.token;
  const claims = peekStreamClaims(token);
  const run: RuntimeRun = { status: 'played', call_id: claims?.call_id ?? null, script: scriptName, events_sent: 0 };
  // A stream to someone else's runtime is theirs to play, whatever its parameters.
  if (!eventsUrlFor(input.stream?.url ?? null, 'probe')) return { ...run, status: 'external' };
  if (!claims || !token) return { ...run, status: 'no_token' };
  const url = eventsUrlFor(input.stream!.url, claims.call_id)!;

  const start = input.now ?? new Date();
  const { view, outcomeType, pack } = await pinnedView(claims.tenant_id, claims.agent_version_id);
  let conversation: SequencedEvent[];
  let goalReached: boolean;
  if (input.script.kind === 'inbound') {
    // The receptionist's check_calendar asks the same availability the API answers (the tenant's calendar, if any).
    const slot = input.script.name === 'booking' && view.tools.includes('check_calendar') ? await checkCalendar(url, token, start) : undefined;
    conversation = inboundScriptEvents(input.script.name, { version: view, at: start, ...(slot ? { slot } : {}) });
    goalReached = true;
  } else {
    const script = input.script.scenario.script;
    if (!script) return { ...run, status: 'nothing_to_play' };
    const questions = await callQuestions(claims.tenant_id, claims.call_id);
    const passageId =
      script.agent_invents_answer && pack ? ((await retrievePassages(claims.tenant_id, pack, PACK_QUESTION).catch(() => []))[0]?.id ?? null) : null;
    conversation = conversationEvents(script, { version: view, questions, at: start, passageId });
    goalReached = script.goal && !script.opt_out;
  }

  const batches = beats(toRuntimeEvents(conversation, { start, goalReached, outcomeType }));
  for (const [i, batch] of batches.entries()) {
    if (i > 0 && input.pauseMs > 0) await new Promise((r) => setTimeout(r, input.pauseMs));
    const res = await post(url, token, batch);
    if (res.status === 200) {
      run.events_sent += batch.length;
      continue;
    }
    const refused = { ...run, http_status: res.status, ...(res.code ? { code: res.code } : {}) };
    if (res.status === 404) return { ...refused, status: 'no_such_call' };
    return { ...refused, status: res.status === 0 || res.status >= 500 ? 'failed' : 'refused' };
  }
  return run;
}

/**
 * The first free 30-minute slot in the coming week through POST /runtime/v1/calls/{id}/calendar/availability
 * (beside the events route); undefined when the tenant has no calendar or the question fails.
 */
async function checkCalendar(eventsUrl: string, token: string, at: Date): Promise<{ starts_at: string; duration_minutes: number } | undefined> {
  const day = (offset: number) => new Date(at.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  try {
    const res = await fetch(eventsUrl.replace(/\/events$/, '/calendar/availability'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ start_date: day(1), end_date: day(7), duration_minutes: 30 }),
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) return undefined;
    const first = ((await res.json()) as { slots?: { starts_at: string }[] }).slots?.[0];
    return first ? { starts_at: first.starts_at, duration_minutes: 30 } : undefined;
  } catch {
    return undefined;
  }
}

/** POST one batch; a network error or a 5xx is retried once (the ids make it idempotent). */
async function post(url: string, token: string, events: PostedEvent[]): Promise<{ status: number; code?: string }> {
  let last: { status: number; code?: string } = { status: 0 };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.json().catch(() => ({}))) as { code?: string };
      last = { status: res.status, ...(typeof body.code === 'string' ? { code: body.code } : {}) };
      if (res.status < 500) return last;
    } catch {
      last = { status: 0 };
    }
  }
  return last;
}
