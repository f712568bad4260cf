/**
 * The voice runtime's tools as the model sees them: one description and one strict zod input
 * schema per tool, pure. A call narrows the schemas it can (the question and objective ids it
 * may answer, the reps it may transfer to); the catalogue documents the unnarrowed forms. No
 * argument names a tenant, call, contact or phone number: the call's identity comes from its
 * token, never from the model.
 */
import * as z from 'zod';
import { MAX_DURATION_MINUTES, MIN_DURATION_MINUTES } from '../policy/calendar/availability.js';
import type { TOOL_GRANTS } from '../schemas/agent-templates.js';
import { policyTimezone } from '../schemas/answering-policy.js';
import { timestamp } from '../schemas/common.js';
import { isoDate, rangeCheck } from '../schemas/integrations.js';

/** The granted tools the runtime can execute (the other grants are never offered to the model). */
export const VOICE_TOOLS = [
  'check_calendar',
  'book_meeting',
  'send_sms',
  'record_optout',
  'transfer_to_human',
  'end_call',
  'record_survey_answer',
  'record_qualification',
  'confirm_shift',
  'record_shift_response',
  'take_message',
  'open_ticket',
  'update_lead',
  'schedule_callback',
] as const satisfies readonly (typeof TOOL_GRANTS)[number][];
export type VoiceToolName = (typeof VOICE_TOOLS)[number];

export const isVoiceTool = (name: string): name is VoiceToolName => (VOICE_TOOLS as readonly string[]).includes(name);

/** What a call lets the schemas name; absent for the catalogue's general forms. */
export interface ToolScope {
  /** Ids the model may record answers for: the call's questions, then the pinned objectives. */
  answerIds: readonly string[];
  transferTargets: readonly { rep_id: string; name: string }[];
}

/** Most answers one record_survey_answer / record_qualification call takes (one batch of events). */
const MAX_ANSWERS_PER_TOOL_CALL = 20;
/** How many free slots check_calendar tells the model (it can ask for another range). */
export const MAX_SLOTS_TOLD = 5;
export const DEFAULT_MEETING_MINUTES = 30;

const text = (max: number) => z.string().min(1).max(max);
const duration = z.int().min(MIN_DURATION_MINUTES).max(MAX_DURATION_MINUTES);
const answerKey = /^[A-Za-z0-9_-]{1,64}$/;

function answerId(scope?: ToolScope) {
  const ids = scope?.answerIds ?? [];
  return ids.length
    ? z.enum(ids as [string, ...string[]]).describe(`One of: ${ids.join(', ')}`)
    : z.string().regex(answerKey, 'Letters, digits, _ and - only (at most 64)').describe('A short key for what was asked');
}

const answers = (scope: ToolScope | undefined, valueChars: number, what: string) =>
  z
    .array(
      z.strictObject({ question_id: answerId(scope), value: text(valueChars).describe(`${what} For a question with options, one of its options exactly.`) }),
    )
    .max(MAX_ANSWERS_PER_TOOL_CALL);

const contactConfirmed = z.literal(true).describe('true only after you read the details back and the contact said yes');

export const toolInputs = {
  check_calendar: () =>
    z
      .strictObject({
        start_date: isoDate.describe('First day to look at, YYYY-MM-DD'),
        end_date: isoDate.optional().describe('Last day to look at, YYYY-MM-DD (default: start_date; at most 31 days after it)'),
        duration_minutes: duration.optional().describe(`Length of the meeting in minutes (default ${DEFAULT_MEETING_MINUTES})`),
        timezone: policyTimezone.optional().describe("IANA time zone the dates are in, e.g. America/New_York (default: the calendar's)"),
      })
      .superRefine((b, ctx) => rangeCheck({ start_date: b.start_date, end_date: b.end_date ?? b.start_date }, ctx)),
  book_meeting: () =>
    z.strictObject({
      starts_at: timestamp.describe('Start time exactly as check_calendar returned it (ISO 8601 with offset)'),
      duration_minutes: duration.describe('Length of the meeting in minutes'),
      timezone: policyTimezone.optional().describe("The contact's IANA time zone, if known"),
      contact_confirmed: contactConfirmed,
      notes: text(300).optional().describe('What the meeting is about, briefly'),
    }),
  send_sms: () => z.strictObject({ body: text(640).describe("The text message to send to the contact's phone (plain text, at most 640 characters)") }),
  record_optout: () =>
    z.strictObject({
      reason: z
        .enum(['opt_out', 'wrong_person'])
        .optional()
        .describe('opt_out (default): the contact asked not to be called; wrong_person: not the person sought, asks not to be called'),
      said: text(300).optional().describe('What the contact said, briefly'),
    }),
  transfer_to_human: (scope?: ToolScope) => {
    const targets = scope?.transferTargets ?? [];
    const repId = targets.length
      ? z
          .enum(targets.map((t) => t.rep_id) as [string, ...string[]])
          .describe(`Who to transfer to: ${targets.map((t) => `${t.rep_id} (${t.name})`).join(', ')}`)
      : z.string().min(1).max(64).describe('The id of the person to transfer to');
    return z.strictObject({ rep_id: repId, reason: text(300).optional().describe('Why the contact wants a person, briefly') });
  },
  end_call: () => z.strictObject({ reason: z.enum(['completed', 'contact_busy', 'not_interested', 'other']).optional().describe('Why the call ends') }),
  record_survey_answer: (scope?: ToolScope) =>
    z.strictObject({
      answers: answers(scope, 1000, "The contact's answer, in their words or as the matching option.")
        .optional()
        .describe('Answers given since the last time you recorded'),
      complete: z.boolean().optional().describe('true once every survey question has an answer'),
      declined: z.boolean().optional().describe('true when the contact refuses to take part'),
    }),
  record_qualification: (scope?: ToolScope) =>
    z.strictObject({
      answers: answers(scope, 300, 'The answer, briefly.').describe('The qualification answers so far'),
      qualified: z.boolean().describe('Whether the contact meets the qualification criteria'),
      summary: text(300).optional().describe('One sentence on why'),
    }),
  confirm_shift: () =>
    z.strictObject({
      shift_id: text(100).optional().describe('The shift id from the call data, if it names one'),
      contact_confirmed: contactConfirmed,
    }),
  record_shift_response: () =>
    z.strictObject({
      response: z.enum(['confirmed', 'declined', 'tentative']).describe("The contact's answer about the shift"),
      shift_id: text(100).optional().describe('The shift id from the call data, if it names one'),
      note: text(300).optional().describe('Anything the contact added, briefly'),
    }),
  take_message: () =>
    z.strictObject({
      message: text(600).describe('The message, in a few sentences'),
      caller_name: text(100).optional().describe("The caller's name, if given"),
      callback_requested: z.boolean().optional().describe('Whether the caller wants to be called back'),
      urgency: z.enum(['low', 'normal', 'high']).optional(),
    }),
  open_ticket: () =>
    z.strictObject({
      subject: text(120).describe('A short title for the issue'),
      details: text(600).describe('What the caller needs, in a few sentences'),
      category: text(60).optional(),
      priority: z.enum(['low', 'normal', 'high', 'urgent']).optional(),
    }),
  update_lead: () =>
    z
      .strictObject({
        interest: z.enum(['interested', 'not_interested', 'undecided']).optional().describe("The contact's interest"),
        next_step: text(200).optional().describe('The agreed next step, briefly'),
        notes: text(600).optional().describe('What was learned about the contact'),
      })
      .refine((a) => a.interest !== undefined || a.next_step !== undefined || a.notes !== undefined, {
        message: 'Give at least one of interest, next_step, notes',
      }),
  schedule_callback: () =>
    z.strictObject({
      preferred_time: timestamp.optional().describe('When to call back, ISO 8601 with offset, if the contact named a time'),
      preferred_window: text(120).optional().describe('When suits the contact, in words (e.g. weekday mornings), if no exact time'),
      reason: text(300).optional().describe('What the callback is about'),
    }),
} as const satisfies Record<VoiceToolName, (scope?: ToolScope) => z.ZodType>;

/** The part of a call's scope each narrowed schema names; every other tool's schema is the same for all calls. */
const scopeNamedBy: Partial<Record<VoiceToolName, (scope: ToolScope) => unknown>> = {
  transfer_to_human: (scope) => scope.transferTargets.map((t) => [t.rep_id, t.name]),
  record_survey_answer: (scope) => scope.answerIds,
  record_qualification: (scope) => scope.answerIds,
};
const scopedInputs = new Map<string, z.ZodType>();
const MAX_SCOPED_INPUTS = 1000;

/**
 * A call's input schema for a tool, the same object for every call with the same scope: the
 * model layer memoises a schema's JSON form on the schema object, so a schema made afresh per
 * call had its JSON derived again on the call's first reply (milliseconds per tool, in the
 * turn). Bounded: the cache starts over when full.
 */
export function scopedToolInput(name: VoiceToolName, scope: ToolScope): z.ZodType {
  const named = scopeNamedBy[name];
  const key = named ? `${name} ${JSON.stringify(named(scope))}` : name;
  let input = scopedInputs.get(key);
  if (!input) {
    if (scopedInputs.size >= MAX_SCOPED_INPUTS) scopedInputs.clear();
    input = toolInputs[name](scope);
    scopedInputs.set(key, input);
  }
  return input;
}

export const toolDescriptions: Record<VoiceToolName, string> = {
  check_calendar:
    'Find free meeting times in the business calendar between two dates. Returns up to 5 slots; offer one or two at a time, in the local time given.',
  book_meeting: 'Book a meeting at one of the free times check_calendar returned, after reading the day and time back to the contact and hearing yes.',
  send_sms: "Send a short text message to the contact's phone (for example a confirmation or a link they asked for). Texting consent rules still apply.",
  record_optout:
    'The contact asked not to be called again (or is the wrong person). Records it; then acknowledge briefly and say goodbye: the call ends after your reply.',
  transfer_to_human: 'Transfer the call to a person when the contact asks for one or you cannot help. The call leaves you after your reply.',
  end_call: 'End the call once it is finished and you have said goodbye in your reply.',
  record_survey_answer:
    'Record survey answers as the contact gives them (by question id). Set complete when every question is answered, or declined when the contact will not take part.',
  record_qualification: 'Record the qualification answers (by question id) and whether the contact qualifies. Calling it again updates the earlier record.',
  confirm_shift: 'Record that the contact confirmed the shift, after reading its details back and hearing yes.',
  record_shift_response: "Record the contact's answer about the shift: confirmed, declined or tentative.",
  take_message: 'Take a message for the team from the caller.',
  open_ticket: "Open a support ticket for the caller's issue.",
  update_lead: "Update the lead with the contact's interest, the next step and notes.",
  schedule_callback: 'Ask the team to call the contact back, at a time the contact chose if any.',
};
