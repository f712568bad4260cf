/**
 * The tools a call's pinned version grants, executed server-side by the voice runtime with
 * the call's identity (the ControlPlane is bound to the call's token). Each maps onto what the
 * control plane already does and reports the runtime events the call detail, the analysis and
 * the survey/qualification/handoff builders read — the same events the sandbox runtime reports
 * for the same tool (shared/sandbox/runtime.ts), so every outcome keeps working:
 *
 *   check_calendar          → cp.checkCalendar; the first MAX_SLOTS_TOLD free slots
 *   book_meeting            → conversation_action (read back, confirmed) + outcome appointment
 *   send_sms                → conversation_action {body} (the route texts through compliance)
 *   record_optout           → opt_out, then conversation_action; the call ends
 *   transfer_to_human       → conversation_action {rep_id}; the call is handed to that rep
 *   end_call                → conversation_action; the call ends
 *   record_survey_answer    → recorded_response per answer; when complete or declined the
 *                             conversation_action and outcome survey_response
 *   record_qualification    → recorded_response per known id + conversation_action (a repeat
 *                             amends the first) + outcome none with a summary
 *   confirm_shift / record_shift_response → conversation_action + outcome shift_confirmation
 *   take_message, open_ticket, update_lead, schedule_callback → conversation_action
 *
 * An outcome of another type than the pinned outcome_type is reported as `none`, and a `none`
 * never replaces a typed outcome already reported. `goal_reached` is never the model's say-so:
 * it is true only when every required objective and question has a recorded answer and the
 * use case's outcome was reached (for outcome type `none`, the contact qualified); an answer
 * recorded after the typed outcome re-reports it with the goal as it now stands. Failures throw ToolError, whose message is
 * safe to give the model. `grantedTools` keeps per-call state (slots offered, answers so far,
 * the outcome reported): call it once per session, or hand it the memory a stateless host
 * stored after the previous reply.
 */
import type * as z from 'zod';
import { smsActionText } from '../messages/sms-action.js';
import { surveyQuestions } from '../policy/surveys/survey-response.js';
import { RecentlyUsed } from '../recently-used.js';
import { type OutcomeBody, RUNTIME_LIMITS } from '../schemas/runtime-events.js';
import { type CallBrief, type ControlPlane, ControlPlaneError, type RuntimeEventInput, type ToolSpec } from './ports.js';
import type { HandoffData } from './protocol.js';
import {
  DEFAULT_MEETING_MINUTES,
  isVoiceTool,
  MAX_SLOTS_TOLD,
  scopedToolInput,
  type ToolScope,
  toolDescriptions,
  toolInputs,
  VOICE_TOOLS,
  type VoiceToolName,
} from './tool-inputs.js';

export { VOICE_TOOLS, type VoiceToolName } from './tool-inputs.js';

export interface ToolHooks {
  /** Ask the session to end the call after the current reply (opt-out, transfer, end_call). */
  requestEnd(data: HandoffData): void;
}

/** Deterministic per session, so a retried post is idempotent. */
export interface EventIds {
  /** A fresh id (the events route's id rules: letters, digits, _ . : -); the tools ask with 'evt' for event ids and 'act' for action ids. */
  next(prefix: string): string;
  now(): Date;
}

/** A tool failure whose message is safe to tell the model (no ids, numbers or internals). */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }
}

/** Every tool the runtime can execute: its description and general input schema (docs, the model registry). */
export interface CatalogueEntry {
  description: string;
  input: z.ZodType;
}
export const TOOL_CATALOGUE: Readonly<Record<VoiceToolName, CatalogueEntry>> = Object.fromEntries(
  VOICE_TOOLS.map((name): [VoiceToolName, CatalogueEntry] => [name, { description: toolDescriptions[name], input: toolInputs[name]() }]),
) as Record<VoiceToolName, CatalogueEntry>;

type Action = Extract<RuntimeEventInput, { type: 'conversation_action' }>;
type Confirmation = NonNullable<Action['action_confirmation']>;
const READ_BACK: Confirmation = { kind: 'read_back', response: 'confirmed', method: 'voice' };

/** The ids a call's answers may name: its questions (kind question), then the pinned objectives. */
function answerKinds(brief: CallBrief): Map<string, 'question' | 'objective'> {
  const kinds = new Map<string, 'question' | 'objective'>();
  for (const q of brief.questions) kinds.set(q.id, 'question');
  for (const o of brief.objectives) if (!kinds.has(o.id)) kinds.set(o.id, 'objective');
  return kinds;
}

function parseArgs<S extends z.ZodType>(schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : 'arguments'}: ${i.message}`);
  throw new ToolError(`Invalid arguments (${problems.join('; ')})`);
}

/** Tool arguments as the events route stores them (≤ RUNTIME_LIMITS.actionArgumentBytes as JSON). */
function fitted(args: Record<string, unknown>): Record<string, unknown> {
  if (Buffer.byteLength(JSON.stringify(args), 'utf8') > RUNTIME_LIMITS.actionArgumentBytes)
    throw new ToolError('That is too long to record: say it more briefly');
  return args;
}

/**
 * One formatter per language and zone, kept: building an Intl.DateTimeFormat costs far more than
 * formatting with it, and check_calendar read every slot it returned through a new one while the
 * contact waited on the tool.
 */
const slotFormatters = new RecentlyUsed<string, Intl.DateTimeFormat>(64);

function slotFormatter(language: string, timeZone: string): Intl.DateTimeFormat {
  const key = `${language} ${timeZone}`;
  let f = slotFormatters.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      weekday: 'long',
      month: 'long',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZone,
      timeZoneName: 'short',
    };
    try {
      f = new Intl.DateTimeFormat(language, options);
    } catch {
      f = new Intl.DateTimeFormat('en-US', options);
    }
    slotFormatters.set(key, f);
  }
  return f;
}

/** How a slot reads aloud in the asked time zone (UTC otherwise). */
function spoken(iso: string, timezone: string | undefined, language: string): string {
  return slotFormatter(language, timezone ?? 'UTC').format(new Date(iso));
}

/** What the tools remember of the call between replies, as JSON. */
export interface ToolMemory {
  ending: boolean;
  optedOut: boolean;
  typedOutcome: boolean;
  offered: number[];
  survey: [string, string][];
  qualificationAction: string | null;
  answered?: string[];
  typed?: { body: OutcomeBody; reached: boolean } | null;
}

/** For a host that keeps no process between replies (the AWS WebSocket API): the memory it stored, and where a tool's changes go. */
export interface ToolMemoryStore {
  initial: ToolMemory | null;
  save(memory: ToolMemory): void;
}

export function grantedTools(brief: CallBrief, cp: ControlPlane, hooks: ToolHooks, ids: EventIds, memory?: ToolMemoryStore): ToolSpec[] {
  const kinds = answerKinds(brief);
  const scope: ToolScope = { answerIds: [...kinds.keys()], transferTargets: brief.transfer_targets };
  const language = brief.definition.conversation_settings?.default_language ?? 'en-US';
  const from = memory?.initial;
  const state = {
    ending: from?.ending ?? false,
    optedOut: from?.optedOut ?? false,
    typedOutcome: from?.typedOutcome ?? false,
    /** Start instants (ms) check_calendar offered: book_meeting books one of them. */
    offered: new Set<number>(from?.offered ?? []),
    survey: new Map<string, string>(from?.survey ?? []),
    qualificationAction: from?.qualificationAction ?? null,
    /** Ids with a recorded answer this call (questions and objectives). */
    answered: new Set<string>(from?.answered ?? []),
    /** The typed outcome last reported, and whether the use case's outcome was reached in it. */
    typed: (from?.typed ?? null) as { body: OutcomeBody; reached: boolean } | null,
  };
  const snapshot = (): ToolMemory => ({ ...state, offered: [...state.offered], survey: [...state.survey], answered: [...state.answered] });
  // Answers can only be recorded with an answer tool: a call without one (a shift confirmation) is judged on its outcome alone.
  const recordable = offeredTools(brief).some((t) => t === 'record_qualification' || t === 'record_survey_answer');
  const required = recordable ? [...brief.objectives.filter((o) => o.required).map((o) => o.id), ...brief.questions.map((q) => q.id)] : [];
  const itemsMet = () => required.every((id) => state.answered.has(id));
  /** The goal as it stands: every required item answered and the outcome reached (`outcomeReached` for this report). */
  const goal = (outcomeReached: boolean) => itemsMet() && outcomeReached;

  const offered = new Set<string>(offeredTools(brief));
  const base = () => ({ id: ids.next('evt'), at: ids.now().toISOString() });
  const action = (kind: VoiceToolName, args: Record<string, unknown>, confirmation?: Confirmation): Action => ({
    ...base(),
    type: 'conversation_action',
    action_id: ids.next('act'),
    kind,
    arguments: fitted(args),
    ...(confirmation ? { action_confirmation: confirmation } : {}),
  });
  /** The outcome to report, or null when it would replace a typed outcome with `none`. */
  const outcome = (body: OutcomeBody, summary?: string): Extract<RuntimeEventInput, { type: 'outcome' }> | null => {
    const fits = body.outcome_type === 'none' || body.outcome_type === brief.outcome_type;
    const reported: OutcomeBody = fits ? body : { outcome_type: 'none', goal_reached: body.goal_reached, ...(summary ? { summary } : {}) };
    if (reported.outcome_type === 'none' && state.typedOutcome) return null;
    return { ...base(), type: 'outcome', outcome: reported };
  };
  /** A typed outcome, its goal computed from what is recorded; `reached` says whether the use case's outcome itself was. */
  const typedOutcome = (body: OutcomeBody, reached: boolean, summary?: string) => {
    const event = outcome({ ...body, goal_reached: goal(reached) }, summary);
    if (event && event.outcome.outcome_type !== 'none') state.typed = { body: event.outcome, reached };
    return event;
  };
  /** After answers were recorded: the typed outcome again when its goal changed with them, else nothing. */
  const refreshed = (): Extract<RuntimeEventInput, { type: 'outcome' }> | null => {
    const t = state.typed;
    if (!t || t.body.goal_reached === goal(t.reached)) return null;
    return typedOutcome(t.body, t.reached);
  };
  const post = async (events: readonly (RuntimeEventInput | null)[], failure: string): Promise<void> => {
    const batch = events.filter((e): e is RuntimeEventInput => e !== null);
    if (batch.length === 0) return;
    try {
      await cp.postEvents(batch);
    } catch (err) {
      throw new ToolError(failure, { cause: err });
    }
    if (batch.some((e) => e.type === 'outcome' && e.outcome.outcome_type !== 'none')) state.typedOutcome = true;
  };
  /** Report, then end the call whatever the report did: the contact's wish stands even when the record failed. */
  const ending = async (events: readonly RuntimeEventInput[], data: HandoffData, failure: string): Promise<void> => {
    state.ending = true;
    try {
      await post(events, failure);
    } finally {
      hooks.requestEnd(data);
    }
  };
  const recordAction = (kind: VoiceToolName, what: string) => async (args: Record<string, unknown>) => {
    await post([action(kind, args)], `The ${what} could not be recorded just now`);
    return { status: 'recorded' };
  };

  const run: Record<VoiceToolName, (args: never) => Promise<unknown>> = {
    check_calendar: async (a: z.output<ReturnType<typeof toolInputs.check_calendar>>) => {
      let slots: { starts_at: string; ends_at: string }[];
      try {
        ({ slots } = await cp.checkCalendar({
          start_date: a.start_date,
          end_date: a.end_date ?? a.start_date,
          duration_minutes: a.duration_minutes ?? DEFAULT_MEETING_MINUTES,
          ...(a.timezone ? { timezone: a.timezone } : {}),
        }));
      } catch (err) {
        const notConnected = err instanceof ControlPlaneError && err.status === 409;
        // Without a calendar a time the contact agrees to is still a booking request the team confirms.
        const instead = offered.has('book_meeting')
          ? 'agree a future time with the contact and book it with book_meeting (the team confirms it), or offer a callback'
          : 'offer a callback or take a message instead';
        throw new ToolError(
          notConnected ? `No calendar is connected, so free times cannot be checked: ${instead}` : 'Free times could not be checked just now',
          { cause: err },
        );
      }
      const told = slots.slice(0, MAX_SLOTS_TOLD);
      for (const s of told) state.offered.add(Date.parse(s.starts_at));
      return {
        slots: told.map((s) => ({ starts_at: s.starts_at, ends_at: s.ends_at, local: spoken(s.starts_at, a.timezone, language) })),
        more_available: slots.length > told.length,
        ...(told.length ? {} : { note: 'No free time in that range' }),
      };
    },
    book_meeting: async (a: z.output<ReturnType<typeof toolInputs.book_meeting>>) => {
      const start = Date.parse(a.starts_at);
      if (start <= ids.now().getTime()) throw new ToolError('That time has already passed: offer a future time');
      if (state.offered.size && !state.offered.has(start))
        throw new ToolError('That time is not one of the free times check_calendar returned: offer one of those');
      const appointment = { starts_at: a.starts_at, duration_minutes: a.duration_minutes, ...(a.timezone ? { timezone: a.timezone } : {}) };
      const booked = action('book_meeting', { outcome: 'booked', appointment, caller_confirmed: true, ...(a.notes ? { notes: a.notes } : {}) }, READ_BACK);
      await post(
        [
          booked,
          typedOutcome(
            {
              outcome_type: 'appointment',
              goal_reached: true,
              status: 'booked',
              starts_at: a.starts_at,
              duration_minutes: a.duration_minutes,
              action_id: booked.action_id,
            },
            true,
            'Booked a meeting',
          ),
        ],
        'The meeting could not be booked just now',
      );
      return { status: 'booked', starts_at: a.starts_at, duration_minutes: a.duration_minutes, local: spoken(a.starts_at, a.timezone, language) };
    },
    send_sms: async (a: z.output<ReturnType<typeof toolInputs.send_sms>>) => {
      const checked = smsActionText({ body: a.body });
      if ('issue' in checked) throw new ToolError(`The text could not be sent: ${checked.issue.msg}`);
      await post([action('send_sms', { body: checked.body })], 'The text message could not be sent');
      return { status: 'sending' };
    },
    record_optout: async (a: z.output<ReturnType<typeof toolInputs.record_optout>>) => {
      const told = { status: 'opted_out', next: 'Acknowledge briefly and say goodbye; the call ends after your reply' };
      if (state.optedOut) return told; // said again: recorded once
      const reason = a.reason ?? 'opt_out';
      // The opt-out alone first: nothing else in its batch (an action over the per-call cap) can sink it.
      await ending(
        [{ ...base(), type: 'opt_out', reason, ...(a.said ? { text: a.said } : {}) }],
        { reason: 'opt_out' },
        'The request was heard but could not be recorded just now',
      );
      state.optedOut = true;
      // The action is the call detail's record of the tool; losing it loses nothing the opt-out needs.
      await post([action('record_optout', { reason })], '').catch(() => undefined);
      return told;
    },
    transfer_to_human: async (a: z.output<ReturnType<typeof toolInputs.transfer_to_human>>) => {
      const target = brief.transfer_targets.find((t) => t.rep_id === a.rep_id);
      if (!target) throw new ToolError('There is no one by that id to transfer to');
      await ending(
        [action('transfer_to_human', { rep_id: target.rep_id, ...(a.reason ? { reason: a.reason } : {}) })],
        { reason: 'transfer_to_human', rep_id: target.rep_id },
        'The transfer could not be recorded, but the call is being transferred',
      );
      return { status: 'transferring', to: target.name, next: 'Tell the contact you are transferring them now' };
    },
    end_call: async (a: z.output<ReturnType<typeof toolInputs.end_call>>) => {
      await ending([action('end_call', a.reason ? { reason: a.reason } : {})], { reason: 'end_call' }, 'The call is ending');
      return { status: 'ending' };
    },
    record_survey_answer: async (a: z.output<ReturnType<typeof toolInputs.record_survey_answer>>) => {
      const given = a.answers ?? [];
      const responses = given.map(
        (x): RuntimeEventInput => ({
          ...base(),
          type: 'recorded_response',
          kind: kinds.get(x.question_id) ?? 'question',
          question_id: x.question_id,
          value: x.value,
        }),
      );
      const answers = new Map(state.survey);
      for (const x of given) answers.set(x.question_id, x.value);
      const asked = surveyQuestions({ questions: brief.questions, version: { use_case: brief.use_case, objectives: brief.objectives } });
      const remaining = asked.filter((q) => q.required && !answers.has(q.id)).map((q) => q.id);
      if (a.complete && !a.declined && remaining.length) throw new ToolError(`Not complete yet: still to answer ${remaining.join(', ')}`);
      const closing: (RuntimeEventInput | null)[] = [];
      const before = new Set(state.answered);
      for (const x of given) state.answered.add(x.question_id);
      if (a.complete || a.declined) {
        const all = Object.fromEntries(answers);
        // The answers are in the recorded responses already; the action carries them only while they fit.
        const args = { ...(a.declined ? { declined: true } : { complete: true }), answers: all };
        const kept = Buffer.byteLength(JSON.stringify(args), 'utf8') <= RUNTIME_LIMITS.actionArgumentBytes ? args : { ...args, answers: {} };
        closing.push(action('record_survey_answer', kept));
        closing.push(
          typedOutcome(
            { outcome_type: 'survey_response', goal_reached: false, complete: !a.declined, answers: all },
            !a.declined,
            a.declined ? 'Declined the survey' : 'Completed the survey',
          ),
        );
      } else closing.push(refreshed());
      try {
        await post([...responses, ...closing], 'The answers could not be recorded just now');
      } catch (err) {
        state.answered = before;
        throw err;
      }
      state.survey = answers;
      return { status: a.declined ? 'declined' : a.complete ? 'complete' : 'recorded', remaining: a.declined ? [] : remaining };
    },
    record_qualification: async (a: z.output<ReturnType<typeof toolInputs.record_qualification>>) => {
      const responses = a.answers
        .filter((x) => kinds.has(x.question_id))
        .map((x): RuntimeEventInput => ({ ...base(), type: 'recorded_response', kind: kinds.get(x.question_id)!, question_id: x.question_id, value: x.value }));
      const answers = Object.fromEntries(a.answers.map((x) => [x.question_id, x.value]));
      const summary = a.summary ?? (a.qualified ? 'Qualified' : 'Not qualified');
      const recorded = action('record_qualification', {
        answers,
        qualified: a.qualified,
        summary,
        ...(state.qualificationAction ? { amends: state.qualificationAction } : {}),
      });
      const before = new Set(state.answered);
      for (const x of a.answers) if (kinds.has(x.question_id)) state.answered.add(x.question_id);
      // With a typed outcome to reach, qualifying alone is not the goal.
      const reached = a.qualified && (brief.outcome_type === 'none' || (state.typed?.reached ?? false));
      try {
        await post(
          [...responses, recorded, state.typed ? refreshed() : outcome({ outcome_type: 'none', goal_reached: goal(reached), summary })],
          'The qualification could not be recorded just now',
        );
      } catch (err) {
        state.answered = before;
        throw err;
      }
      state.qualificationAction ??= recorded.action_id;
      return { status: 'recorded', qualified: a.qualified };
    },
    confirm_shift: async (a: z.output<ReturnType<typeof toolInputs.confirm_shift>>) => {
      const shift = a.shift_id ? { shift_id: a.shift_id } : {};
      await post(
        [
          action('confirm_shift', { response: 'confirmed', ...shift }, READ_BACK),
          typedOutcome({ outcome_type: 'shift_confirmation', goal_reached: true, response: 'confirmed', ...shift }, true, 'Shift confirmed'),
        ],
        'The confirmation could not be recorded just now',
      );
      return { status: 'confirmed' };
    },
    record_shift_response: async (a: z.output<ReturnType<typeof toolInputs.record_shift_response>>) => {
      const shift = a.shift_id ? { shift_id: a.shift_id } : {};
      await post(
        [
          action('record_shift_response', { response: a.response, ...shift, ...(a.note ? { note: a.note } : {}) }),
          typedOutcome(
            { outcome_type: 'shift_confirmation', goal_reached: false, response: a.response, ...shift },
            a.response === 'confirmed',
            `Shift ${a.response}`,
          ),
        ],
        'The answer could not be recorded just now',
      );
      return { status: 'recorded', response: a.response };
    },
    take_message: recordAction('take_message', 'message'),
    open_ticket: recordAction('open_ticket', 'ticket'),
    update_lead: recordAction('update_lead', 'update'),
    schedule_callback: async (a: z.output<ReturnType<typeof toolInputs.schedule_callback>>) => {
      if (a.preferred_time && Date.parse(a.preferred_time) <= ids.now().getTime()) throw new ToolError('That time has already passed: ask for a future time');
      await post([action('schedule_callback', a)], 'The callback could not be arranged just now');
      return { status: 'requested' };
    },
  };

  return offeredTools(brief).map((name): ToolSpec => {
    const input = scopedToolInput(name, scope);
    return {
      name,
      description: toolDescriptions[name],
      input,
      execute: async (args, ctx) => {
        if (ctx.signal.aborted) throw new ToolError('The reply was interrupted before this ran');
        // An opt-out is recorded even while the call ends: the contact's wish is what counts.
        if (state.ending && name !== 'record_optout') throw new ToolError('The call is already ending');
        try {
          return await (run[name] as (a: unknown) => Promise<unknown>)(parseArgs(input, args));
        } finally {
          memory?.save(snapshot());
        }
      },
    };
  });
}

/**
 * The tools a call offers the model, in the version's order: those it grants that the runtime
 * can execute; transfer_to_human only with someone to transfer to.
 */
export const offeredTools = (brief: Pick<CallBrief, 'definition' | 'transfer_targets'>): VoiceToolName[] =>
  brief.definition.tools.filter(isVoiceTool).filter((name) => name !== 'transfer_to_human' || brief.transfer_targets.length > 0);
