/**
 * Twilio ConversationRelay's WebSocket message protocol, both directions, as zod schemas.
 * Twilio transcribes the caller and speaks our text; the runtime only exchanges these JSON
 * messages. Inbound messages are parsed leniently on unknown extra keys (Twilio adds fields
 * over time) but strictly on the fields we read; outbound messages are built only through
 * `outbound.parse`, so the session never sends a message Twilio would reject.
 */
import * as z from 'zod';

/* ---- Twilio → runtime ---- */

export const setupMessage = z.looseObject({
  type: z.literal('setup'),
  sessionId: z.string().min(1).max(128),
  callSid: z.string().min(1).max(128),
  accountSid: z.string().max(128).optional(),
  parentCallSid: z.string().max(128).optional(),
  from: z.string().max(64).optional(),
  to: z.string().max(64).optional(),
  forwardedFrom: z.string().max(64).optional(),
  callType: z.string().max(32).optional(),
  callerName: z.string().max(256).optional(),
  direction: z.string().max(32).optional(),
  callStatus: z.string().max(32).optional(),
  /** The <Parameter> elements of the TwiML; `token` is the signed call token. */
  customParameters: z.record(z.string(), z.string().max(8192)).default({}),
});

export const promptMessage = z.looseObject({
  type: z.literal('prompt'),
  voicePrompt: z.string().max(16_000),
  lang: z.string().max(35).optional(),
  /** false while the caller is still speaking (partial prompts); true for the final transcript. */
  last: z.boolean().default(true),
});

export const interruptMessage = z.looseObject({
  type: z.literal('interrupt'),
  /** What the caller actually heard of our reply before talking over it. */
  utteranceUntilInterrupt: z.string().max(16_000).default(''),
  durationUntilInterruptMs: z.number().min(0).max(86_400_000).default(0),
});

export const dtmfMessage = z.looseObject({ type: z.literal('dtmf'), digit: z.string().regex(/^[0-9*#A-Da-dw]$/) });

export const errorMessage = z.looseObject({ type: z.literal('error'), description: z.string().max(4000).default('') });

export const inbound = z.discriminatedUnion('type', [setupMessage, promptMessage, interruptMessage, dtmfMessage, errorMessage]);
export type InboundMessage = z.output<typeof inbound>;
export type SetupMessage = z.output<typeof setupMessage>;
export type PromptMessage = z.output<typeof promptMessage>;
export type InterruptMessage = z.output<typeof interruptMessage>;

/** A raw frame → a message, or why not (logged and ignored by the session, never a crash). */
export function parseInbound(raw: string | Buffer): { ok: true; message: InboundMessage } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return { ok: false, reason: 'not_json' };
  }
  const parsed = inbound.safeParse(json);
  if (!parsed.success) {
    const type = typeof json === 'object' && json !== null && typeof (json as { type?: unknown }).type === 'string' ? (json as { type: string }).type : null;
    return { ok: false, reason: type && !['setup', 'prompt', 'interrupt', 'dtmf', 'error'].includes(type) ? 'unknown_type' : 'malformed' };
  }
  return { ok: true, message: parsed.data };
}

/* ---- runtime → Twilio ---- */

export const textMessage = z.strictObject({
  type: z.literal('text'),
  /** A phrase of the reply (tokens coalesced), never empty unless `last` closes the reply. */
  token: z.string().max(4000),
  last: z.boolean(),
  lang: z.string().min(2).max(35).optional(),
  interruptible: z.boolean().optional(),
  preemptible: z.boolean().optional(),
});

export const languageMessage = z.strictObject({
  type: z.literal('language'),
  ttsLanguage: z.string().min(2).max(35),
  transcriptionLanguage: z.string().min(2).max(35),
});

export const sendDigitsMessage = z.strictObject({ type: z.literal('sendDigits'), digits: z.string().regex(/^[0-9*#w]{1,32}$/) });

export const endMessage = z.strictObject({
  type: z.literal('end'),
  /** JSON text Twilio posts back to the <Connect action> URL as HandoffData. */
  handoffData: z.string().max(8192).optional(),
});

export const outbound = z.discriminatedUnion('type', [textMessage, languageMessage, sendDigitsMessage, endMessage]);
export type OutboundMessage = z.output<typeof outbound>;

/** The reasons a session hands the call back through `end` (HandoffData's `reason`). */
export const HANDOFF_REASONS = ['end_call', 'transfer_to_human', 'opt_out', 'model_failed', 'runtime_error'] as const;
export type HandoffReason = (typeof HANDOFF_REASONS)[number];

export const handoffData = z.strictObject({
  reason: z.enum(HANDOFF_REASONS),
  /** transfer_to_human: the rep the agent asked for (resolved server-side to a stored number; never a raw number). */
  rep_id: z.string().max(64).optional(),
  /** end_call / opt_out: the closing line the carrier says before hanging up, if not already spoken. */
  closing: z.string().max(1000).optional(),
});
export type HandoffData = z.output<typeof handoffData>;
