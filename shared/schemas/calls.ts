/**
 * The queue-call request (the contract "Queue-call request") and the preflight
 * request and answer (docs/decisions/calls-and-compliance.md). Questions and context are conversation inputs only: capped
 * hard so context stays a context, and never allowed to shadow a variable the voice
 * runtime fills itself (RESERVED_CONTEXT_PREFIXES).
 */
import * as z from 'zod';
import { BLOCK_CODES, type ComplianceDecision, type ComplianceReason, DEFER_CODES } from '../policy/compliance/types.js';
import { timestamp } from './common.js';
import { multiLineText, singleLineText } from './text.js';

/** Caps on per-call questions and context (documented in the README and docs/decisions/calls-and-compliance.md). */
export const CALL_INPUT_LIMITS = {
  questions: 20,
  promptChars: 500,
  contextKeys: 50,
  contextKeyChars: 64,
  contextValueChars: 1000,
  /** questions + context, as compact JSON (UTF-8). */
  totalBytes: 16 * 1024,
  mappingEntries: 20,
} as const;

/**
 * Context keys the runtime fills itself, matched case-insensitively: a key equal to one of
 * these names, or starting with it followed by `_` or `.`, is refused. The runtime renders
 * `contact_first_name`, `agent_name`, `call_id`, `caller_number`, `destination_number`,
 * `tenant_name`, `platform_…` and so on from durable records; a context entry may never
 * stand in for one of them (the call is addressed only by durable tenant resources).
 */
export const RESERVED_CONTEXT_PREFIXES = ['contact', 'agent', 'call', 'caller', 'destination', 'tenant', 'platform'] as const;

export const isReservedContextKey = (key: string): boolean => {
  const k = key.toLowerCase();
  return RESERVED_CONTEXT_PREFIXES.some((p) => k === p || k.startsWith(`${p}_`) || k.startsWith(`${p}.`));
};

const QUESTION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** A scale names a kind of scale (csat, nps, likert); the number of points is `points`, never part of the name. */
const SCALE = /^[a-z][a-z_]{0,39}$/;

const questionScoring = z
  .strictObject({
    scale: z
      .string()
      .regex(SCALE, { message: "A scale is lowercase letters and '_' (e.g. csat); the number of points goes in `points`, never in the name" })
      .describe('The kind of scale, e.g. csat'),
    points: z.int().min(2).max(100).describe('How many points the scale has'),
    mapping: z
      .record(singleLineText({ min: 1, max: 100 }), z.int().min(0).max(100))
      .refine((m) => Object.keys(m).length <= CALL_INPUT_LIMITS.mappingEntries, {
        message: `At most ${CALL_INPUT_LIMITS.mappingEntries} mapping entries`,
        params: { type: 'too_long', ctx: { max_length: CALL_INPUT_LIMITS.mappingEntries } },
      })
      .optional()
      .describe('Answer → points'),
    weight: z.number().gt(0).max(100).optional().describe('Weight of this question in the call score'),
  })
  .superRefine((s, ctx) => {
    for (const [answer, points] of Object.entries(s.mapping ?? {})) {
      if (points > s.points)
        ctx.addIssue({
          code: 'custom',
          path: ['mapping', answer],
          input: points,
          message: `Input should be less than or equal to ${s.points} (the scale's points)`,
          params: { type: 'less_than_equal', ctx: { le: s.points } },
        });
    }
  })
  .meta({ id: 'QuestionScoring' });

export const callQuestion = z
  .strictObject({
    id: z.string().regex(QUESTION_ID, { message: "A question id is 1 to 64 letters, digits, '_' or '-'" }),
    prompt: multiLineText({ min: 1, max: CALL_INPUT_LIMITS.promptChars }),
    scoring: questionScoring.optional(),
  })
  .meta({ id: 'CallQuestion' });

const callContext = z
  .record(singleLineText({ min: 1, max: CALL_INPUT_LIMITS.contextKeyChars }), multiLineText({ max: CALL_INPUT_LIMITS.contextValueChars }))
  .superRefine((c, ctx) => {
    const keys = Object.keys(c);
    if (keys.length > CALL_INPUT_LIMITS.contextKeys) {
      ctx.addIssue({
        code: 'custom',
        message: `Object should have at most ${CALL_INPUT_LIMITS.contextKeys} properties`,
        params: { type: 'too_long', ctx: { max_length: CALL_INPUT_LIMITS.contextKeys } },
      });
    }
    for (const key of keys) {
      if (isReservedContextKey(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `'${key}' would shadow a variable the platform fills itself (keys named or starting with ${RESERVED_CONTEXT_PREFIXES.map((p) => `${p}_`).join(', ')} are reserved): rename it`,
          params: { type: 'context_key_reserved' },
        });
      }
    }
  })
  .describe(
    `Facts the agent may use: string → string, at most ${CALL_INPUT_LIMITS.contextKeys} keys, values ≤ ${CALL_INPUT_LIMITS.contextValueChars} characters; keys named or starting with ${RESERVED_CONTEXT_PREFIXES.map((p) => `${p}_`).join(', ')} are reserved`,
  );

const queueCallShape = {
  agent_id: z.string().min(1).max(64).describe('The agent; its latest published version is pinned'),
  contact_id: z.string().min(1).max(64).describe('The contact to call (addressed only by this id, never by a raw number)'),
  questions: z
    .array(callQuestion)
    .max(CALL_INPUT_LIMITS.questions)
    .optional()
    .describe(`Per-call survey questions added to the pinned version's objectives (at most ${CALL_INPUT_LIMITS.questions})`),
  context: callContext.optional(),
};

/** Rules across fields: question ids unique; questions + context at most 16 KB. */
function callInputRules(v: { questions?: { id: string }[]; context?: Record<string, string> }, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  (v.questions ?? []).forEach((q, i) => {
    if (seen.has(q.id))
      ctx.addIssue({ code: 'custom', path: ['questions', i, 'id'], input: q.id, message: `Duplicate question id '${q.id}'`, params: { type: 'duplicate' } });
    seen.add(q.id);
  });
  const bytes = Buffer.byteLength(JSON.stringify({ questions: v.questions ?? [], context: v.context ?? {} }), 'utf8');
  if (bytes > CALL_INPUT_LIMITS.totalBytes) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: `questions and context are ${bytes} bytes as JSON; at most ${CALL_INPUT_LIMITS.totalBytes} are allowed`,
      params: { type: 'json_too_large', ctx: { max_bytes: CALL_INPUT_LIMITS.totalBytes } },
    });
  }
}

/** POST /v1/calls body (see docs/decisions/dispatch-and-carrier.md). */
export const queueCallRequest = z.strictObject(queueCallShape).superRefine(callInputRules).meta({ id: 'QueueCallRequest' });
export type QueueCallRequest = z.output<typeof queueCallRequest>;

/** POST /v1/calls/preflight body: the queue-call body plus the instant to judge. */
export const preflightCallRequest = z
  .strictObject({ ...queueCallShape, at: timestamp.optional().describe('The instant to judge (default: now)') })
  .superRefine(callInputRules)
  .meta({ id: 'PreflightCallRequest' });

/** Reasons the caller-number choice adds to the engine's (the engine's own codes are BLOCK_CODES / DEFER_CODES). */
const CALLER_REASON_CODES = ['no_caller_number'] as const;
type CallerReasonCode = (typeof CALLER_REASON_CODES)[number];

export interface CallerReason {
  code: CallerReasonCode;
  message: string;
  until?: string;
}

/** The engine's decision with the caller choice merged in (shared/calls/caller-decision.ts); stored on the call record. */
export type CallDecision = Omit<ComplianceDecision, 'reasons'> & { reasons: (ComplianceReason | CallerReason)[] };

const callingWindow = z.object({ start: z.string(), end: z.string() });

const complianceReason = z
  .object({
    code: z.enum([...BLOCK_CODES, ...DEFER_CODES, ...CALLER_REASON_CODES]),
    message: z.string(),
    zone: z.string().optional(),
    local_time: z.string().optional(),
    weekday: z.string().optional(),
    state: z.string().optional(),
    window: callingWindow.optional(),
    area_code: z.string().optional(),
    as_of: z.string().optional(),
    subject: z.string().optional(),
    attempts: z.int().optional(),
    until: timestamp.optional(),
  })
  .meta({ id: 'ComplianceReason' });

/** The decision stored verbatim on an attempt (`compliance`) and answered by preflight. */
export const complianceDecision = z
  .object({
    outcome: z.enum(['allow', 'defer', 'block']),
    disposition: z.enum(['dnc_hit', 'scrub_blocked', 'blocked_by_policy']).nullable().describe('Set only for block'),
    reasons: z.array(complianceReason).describe('Every rule that fails, not just the first'),
    next_permitted_at: timestamp.nullable().describe('Set only for defer: the earliest instant at or after evaluated_at when no defer reason holds'),
    callee: z.object({ zones: z.array(z.string()), states: z.array(z.string()) }),
    call_purpose: z.enum(['marketing', 'informational']).nullable(),
    evaluated_at: timestamp,
    rule_set_version: z.string(),
  })
  .meta({ id: 'ComplianceDecision' });

export const preflightResult = complianceDecision
  .extend({
    agent_version_id: z.string().describe('The published version a call queued now would pin'),
    caller: z
      .object({ phone_number_id: z.string(), from_e164: z.string(), telephony_account_id: z.string() })
      .nullable()
      .describe('The number the dispatcher would place the call from; null when none is usable now'),
  })
  .meta({ id: 'PreflightResult' });
