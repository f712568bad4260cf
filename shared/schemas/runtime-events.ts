/**
 * What the voice runtime reports about a call (POST /runtime/v1/calls/{call_id}/events):
 * a batch of typed events, each named by the runtime's own event id (the idempotency key:
 * a replayed id changes nothing and answers what it answered the first time).
 *
 * Limits (422 in the contract's shape, never a 500): at most MAX_EVENTS_PER_REQUEST events a
 * request with distinct ids, RUNTIME_LIMITS for text sizes; per call (checked when stored)
 * at most MAX_EVENTS_PER_CALL events, MAX_RECORDED_RESPONSES_PER_CALL recorded responses and
 * MAX_ACTIONS_PER_CALL conversation actions. A recorded response's value and note are
 * accepted up to RUNTIME_LIMITS.responseInputChars and stored truncated (value_truncated,
 * note_truncated) — a caller's long answer is kept, shortened, rather than refused.
 */
import * as z from 'zod';
import { OUTCOME_TYPES, toolGrant } from './agent-templates.js';
import { errorWith, storableObject, timestamp } from './common.js';

export const MAX_EVENTS_PER_REQUEST = 25;
export const MAX_EVENTS_PER_CALL = 1000;
export const MAX_RECORDED_RESPONSES_PER_CALL = 50;
export const MAX_ACTIONS_PER_CALL = 20;

export const RUNTIME_LIMITS = {
  eventIdChars: 80,
  turnTextChars: 4000,
  disclosureTextChars: 2000,
  /** A recorded response's value and note may be sent up to this long… */
  responseInputChars: 16_000,
  /** …and are stored at most this long (value_truncated / note_truncated say so). */
  responseValueChars: 1000,
  responseNoteChars: 500,
  actionArgumentBytes: 2048,
  shortTextChars: 1000,
  passagesPerTurn: 10,
} as const;

export const RUNTIME_EVENT_TYPES = [
  'turn',
  'disclosure',
  'recorded_response',
  'conversation_action',
  'action_confirmation',
  'outcome',
  'opt_out',
  'usage',
  'hangup',
] as const;
export type RuntimeEventType = (typeof RUNTIME_EVENT_TYPES)[number];

const eventId = z
  .string()
  .min(1)
  .max(RUNTIME_LIMITS.eventIdChars)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'Letters, digits and _ . : - only')
  .describe("The runtime's own id for the event: the idempotency key (a replay with the same id changes nothing)");
const actionId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'Letters, digits and _ . : - only');
const offsetMs = z
  .int()
  .min(0)
  .max(24 * 3600 * 1000);

const base = {
  id: eventId,
  at: timestamp.describe('When it happened, by the runtime clock'),
};

export const turnEvent = z
  .strictObject({
    ...base,
    type: z.literal('turn'),
    speaker: z.enum(['agent', 'contact']),
    text: z.string().max(RUNTIME_LIMITS.turnTextChars),
    start_ms: offsetMs.optional().describe('Offset from the start of the stream'),
    end_ms: offsetMs.optional(),
    latency_ms: z.int().min(0).max(600_000).optional().describe('Agent turns: from the contact falling silent to the agent starting to speak'),
    interrupted: z.boolean().optional().describe('Agent turns: the contact talked over the reply; `text` is what was heard before the interruption'),
    model: z.string().min(1).max(200).optional().describe('Agent turns: the model that produced the reply'),
    passage_ids: z
      .array(
        z
          .string()
          .min(1)
          .max(120)
          .regex(/^[A-Za-z0-9_.:-]+$/, 'Letters, digits and _ . : - only'),
      )
      .min(1)
      .max(RUNTIME_LIMITS.passagesPerTurn)
      .optional()
      .describe(
        "Agent turns: the knowledge-pack passages (of the pinned pack version) the reply relied on; the analysis checks the turn's claims against them",
      ),
  })
  .refine((e) => e.start_ms === undefined || e.end_ms === undefined || e.end_ms >= e.start_ms, {
    path: ['end_ms'],
    message: 'end_ms must not be before start_ms',
  });

export const disclosureEvent = z.strictObject({ ...base, type: z.literal('disclosure'), text: z.string().min(1).max(RUNTIME_LIMITS.disclosureTextChars) });

export const RECORDED_RESPONSE_KINDS = ['objective', 'question'] as const;
export const recordedResponseEvent = z.strictObject({
  ...base,
  type: z.literal('recorded_response'),
  kind: z.enum(RECORDED_RESPONSE_KINDS).describe("objective: one of the pinned version's objectives; question: one of the call's questions"),
  question_id: z.string().min(1).max(64),
  value: z.string().max(RUNTIME_LIMITS.responseInputChars).describe(`Stored at most ${RUNTIME_LIMITS.responseValueChars} characters (value_truncated)`),
  note: z.string().max(RUNTIME_LIMITS.responseInputChars).optional().describe(`Stored at most ${RUNTIME_LIMITS.responseNoteChars} characters (note_truncated)`),
});

export const actionConfirmation = z.strictObject({
  kind: z.enum(['explicit', 'read_back', 'implicit']).describe('How the contact confirmed'),
  response: z.enum(['confirmed', 'declined', 'corrected']),
  method: z.enum(['voice', 'dtmf', 'sms']).default('voice'),
  policy_version: z.int().min(1).nullable().default(null).describe('The confirmation policy version the runtime applied, if any'),
});
export type ActionConfirmation = z.output<typeof actionConfirmation>;

export const conversationActionEvent = z.strictObject({
  ...base,
  type: z.literal('conversation_action'),
  action_id: actionId.describe('Names the action for a later action_confirmation'),
  kind: toolGrant.describe('The tool the agent used'),
  arguments: storableObject({ maxBytes: RUNTIME_LIMITS.actionArgumentBytes, maxDepth: 4, what: 'arguments' }).default({}),
  action_confirmation: actionConfirmation.optional(),
});

export const actionConfirmationEvent = z.strictObject({
  ...base,
  type: z.literal('action_confirmation'),
  action_id: actionId,
  action_confirmation: actionConfirmation,
});

const goal = {
  goal_reached: z.boolean().describe("Whether the call reached the pinned version's goal"),
  summary: z.string().max(RUNTIME_LIMITS.shortTextChars).optional(),
};
export const outcomeBody = z.discriminatedUnion('outcome_type', [
  z.strictObject({
    outcome_type: z.literal('appointment'),
    ...goal,
    status: z.enum(['booked', 'rescheduled', 'cancelled', 'not_booked']),
    starts_at: timestamp.optional(),
    duration_minutes: z.int().min(5).max(480).optional(),
    action_id: actionId.optional(),
  }),
  z.strictObject({
    outcome_type: z.literal('shift_confirmation'),
    ...goal,
    response: z.enum(['confirmed', 'declined', 'tentative']),
    shift_id: z.string().min(1).max(100).optional(),
  }),
  z.strictObject({
    outcome_type: z.literal('survey_response'),
    ...goal,
    complete: z.boolean(),
    answers: z
      .record(z.string().min(1).max(64), z.string().max(RUNTIME_LIMITS.shortTextChars))
      .refine((a) => Object.keys(a).length <= 50, 'At most 50 answers'),
  }),
  z.strictObject({ outcome_type: z.literal('none'), ...goal }),
]);
export type OutcomeBody = z.output<typeof outcomeBody>;
export const outcomeEvent = z.strictObject({
  ...base,
  type: z.literal('outcome'),
  outcome: outcomeBody.describe(`Structured by the pinned version's outcome_type (${OUTCOME_TYPES.join(', ')})`),
});

export const optOutEvent = z.strictObject({
  ...base,
  type: z.literal('opt_out'),
  reason: z.enum(['opt_out', 'wrong_person']).describe('opt_out: "stop calling me"; wrong_person: not the person sought, asks not to be called'),
  text: z.string().max(RUNTIME_LIMITS.shortTextChars).optional().describe('What the contact said'),
});

const count = z.int().min(0).max(100_000_000);
/**
 * Seconds to the millisecond: at most 3 decimal places, as JSON wrote them (a number's
 * shortest form; 1e-7 and below print with an exponent and are refused too). Bounds the scale
 * of what the ledger ADDs to DynamoDB numbers (38 significant digits), so a quantity like
 * 1e-131 is a 422 rather than a ValidationException every time the batch is resent.
 */
export const SECONDS_DECIMALS = 3;
const seconds = z
  .number()
  .min(0)
  .max(86_400)
  .refine((v) => new RegExp(`^\\d+(\\.\\d{1,${SECONDS_DECIMALS}})?$`).test(String(v)), {
    message: `At most ${SECONDS_DECIMALS} decimal places (milliseconds)`,
    params: { type: 'decimal_max_places', ctx: { decimal_places: SECONDS_DECIMALS } },
  })
  .describe(`Seconds, at most ${SECONDS_DECIMALS} decimal places`);
export const usageEvent = z
  .strictObject({
    ...base,
    type: z.literal('usage'),
    audio_seconds: seconds.optional(),
    characters_spoken: count.optional(),
    llm_input_tokens: count.optional(),
    llm_output_tokens: count.optional(),
    /** Of llm_input_tokens, those served from the provider's prompt cache (at most llm_input_tokens; metered apart: llm_cached_prompt_tokens, the rest as llm_prompt_tokens). */
    llm_cached_input_tokens: count.optional(),
    /** GPU time the runtime spent on the call (speech models), seconds. */
    gpu_seconds: seconds.optional(),
  })
  .refine(
    (e) =>
      [e.audio_seconds, e.characters_spoken, e.llm_input_tokens, e.llm_output_tokens, e.llm_cached_input_tokens, e.gpu_seconds].some((v) => v !== undefined),
    { message: 'A usage event reports at least one quantity' },
  )
  // Cached tokens are part of the input (metered apart: prompt = input − cached), so never more than it.
  .refine((e) => e.llm_cached_input_tokens === undefined || e.llm_cached_input_tokens <= (e.llm_input_tokens ?? 0), {
    path: ['llm_cached_input_tokens'],
    message: 'llm_cached_input_tokens is part of llm_input_tokens and cannot exceed it',
  })
  .describe(
    'Usage since the previous usage event of the call (increments, not running totals): each usage event is metered once, into the usage ledger (stt_audio_seconds, tts_characters, llm_prompt_tokens, llm_cached_prompt_tokens, llm_completion_tokens, gpu_seconds)',
  );

export const hangupEvent = z.strictObject({
  ...base,
  type: z.literal('hangup'),
  by: z.enum(['agent', 'contact', 'runtime']),
  reason: z.string().max(200).optional(),
});

export const runtimeEvent = z
  .discriminatedUnion('type', [
    turnEvent,
    disclosureEvent,
    recordedResponseEvent,
    conversationActionEvent,
    actionConfirmationEvent,
    outcomeEvent,
    optOutEvent,
    usageEvent,
    hangupEvent,
  ])
  .meta({ id: 'RuntimeEvent' });
export type RuntimeEvent = z.output<typeof runtimeEvent>;
export type TurnEvent = z.output<typeof turnEvent>;

export const runtimeEventsRequest = z
  .strictObject({
    events: z.array(runtimeEvent).min(1).max(MAX_EVENTS_PER_REQUEST),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.events.forEach((e, i) => {
      if (seen.has(e.id))
        ctx.addIssue({
          code: 'custom',
          path: ['events', i, 'id'],
          message: 'Event ids must be unique within a request',
          input: e.id,
          params: { type: 'duplicate_event_id' },
        });
      seen.add(e.id);
    });
  })
  .meta({
    id: 'RuntimeEventsRequest',
    description: `A batch of 1–${MAX_EVENTS_PER_REQUEST} events (one event is a batch of one), applied in order, all or nothing`,
  });

export const runtimeEventResult = z.object({
  id: z.string(),
  type: z.enum(RUNTIME_EVENT_TYPES),
  seq: z.int().describe("The event's position among the call's events (0-based)"),
  received_at: timestamp,
});

export const runtimeEventsResponse = z
  .object({
    call_id: z.string(),
    results: z.array(runtimeEventResult).describe('One per event, in request order; a replayed event answers what it answered when first stored'),
  })
  .meta({ id: 'RuntimeEventsResult' });

export const callEventsPath = z.object({ call_id: z.string().min(1).max(64) });

/** 409 `event_id_reused` names the event; `call_not_in_conversation` adds nothing. */
export const eventConflictError = errorWith('CallEventConflictError', {
  event_id: z.string().describe('With `event_id_reused`: the id sent again with another body'),
});
