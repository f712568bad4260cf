/**
 * Answering policies (the contract "Answering policy", Part 4 PUT rules, Part 8 Limits).
 * The request is closed at every level, like every request object in this API. Steps are
 * discriminated by `type`, `menu` when it is absent; the schema is recursive, and the menu
 * depth limit is checked over the whole document so a too-deep menu is refused at its own
 * loc alongside every other problem.
 */
import * as z from 'zod';
import { idPattern } from '../ids.js';
import {
  DTMF_KEYS,
  isWindowEnd,
  isWindowStart,
  LIMITS,
  type PolicyStep,
  type RequestStep,
  WEEKDAYS,
  WINDOW_END,
  windowMinutes,
} from '../policy/answering/model.js';
import { HHMM } from '../policy/calling-window.js';
import { INELIGIBLE_REASONS } from '../policy/number-eligibility.js';
import { isIanaZone } from '../time-zone.js';
import { errorWith, timestamp } from './common.js';
import { multiLineText } from './text.js';

/** Document-wide checks run even when parts of the document already failed: all errors at once. */
const always = { when: () => true };
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const policyTimezone = z
  .string()
  .min(1)
  .max(LIMITS.timezoneChars)
  .refine(isIanaZone, { message: 'Not an IANA time zone name known to this service (for example America/New_York)', params: { type: 'timezone_invalid' } });

const windowStart = z.string().regex(HHMM, { message: 'Time must be HH:MM on a 24-hour clock' });
const windowEnd = z.string().regex(WINDOW_END, { message: 'Time must be HH:MM on a 24-hour clock (24:00 ends a window at midnight)' });

export const businessWindow = z.strictObject({ start: windowStart, end: windowEnd }).superRefine((w, ctx) => {
  if (!isWindowStart(w.start) || !isWindowEnd(w.end)) return; // a malformed time is reported once, by its own field
  const m = windowMinutes(w);
  if (m.start >= m.end)
    ctx.addIssue({ code: 'custom', message: 'start must be earlier than end (start is included, end excluded)', input: w, params: { type: 'window_empty' } });
});

const dayWindows = z.array(businessWindow).max(LIMITS.windowsPerDay);

const businessHours = z
  .strictObject(Object.fromEntries(WEEKDAYS.map((d) => [d, dayWindows.optional()])) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<typeof dayWindows>>)
  .describe('Keys are lowercase English weekday names. Empty: open at every hour. Naming any day makes every unnamed day closed.');

const uniqueItems = (what: string) => (items: readonly unknown[], ctx: z.RefinementCtx) =>
  items.forEach((v, i) => {
    if (items.indexOf(v) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `Duplicate ${what}`, input: v, params: { type: 'duplicate' } });
  });

/** z.iso.date checks the calendar too: 2026-02-30 is refused, 2028-02-29 accepted. */
const holidayDates = z.array(z.iso.date()).max(LIMITS.holidayDates).superRefine(uniqueItems('date'));

// Recursive: a menu's branches hold steps. The explicit type breaks the inference cycle.
const answeringStep: z.ZodType<RequestStep> = z
  .lazy(() => z.discriminatedUnion('type', [menuStep, ringHumansStep, aiStep, voicemailStep, hangupStep]))
  .meta({ id: 'AnsweringPolicyStep' });

const branchSteps = z.array(answeringStep).min(1).max(LIMITS.branchSteps);

const branches = z
  .strictObject(Object.fromEntries(DTMF_KEYS.map((k) => [k, branchSteps.optional()])) as Record<(typeof DTMF_KEYS)[number], z.ZodOptional<typeof branchSteps>>)
  .superRefine((b, ctx) => {
    // Only the 12 keypad keys are accepted, so "at most 12 properties" holds by construction.
    if (isPlainObject(b) && Object.keys(b).length < 1) {
      ctx.addIssue({ code: 'custom', message: 'A menu needs at least 1 branch', params: { type: 'too_short', ctx: { min_length: 1 } } });
    }
  }, always)
  .describe('Keys are single DTMF keys (0-9, *, #); each value is 1 to 12 steps.');

const menuStep = z.strictObject({
  type: z.literal('menu').default('menu'),
  prompt: multiLineText({ min: 1, max: LIMITS.promptChars }),
  branches,
  timeout_seconds: z.int().min(LIMITS.menuTimeoutSeconds.min).max(LIMITS.menuTimeoutSeconds.max).default(LIMITS.menuTimeoutSeconds.default),
  max_invalid_attempts: z.int().min(LIMITS.maxInvalidAttempts.min).max(LIMITS.maxInvalidAttempts.max).default(LIMITS.maxInvalidAttempts.default),
  timeout_branch: z.array(answeringStep).min(1).max(LIMITS.timeoutBranchSteps).describe('Runs on no key press, and once the invalid-press budget is spent'),
});

const ringHumansStep = z.strictObject({
  type: z.literal('ring_humans'),
  rep_ids: z
    .array(z.string().regex(idPattern('rep'), { message: 'A rep id (rep_…)' }))
    .min(1)
    .max(LIMITS.ringReps)
    .superRefine(uniqueItems('rep id'))
    .describe('Active, transfer-enabled reps of this tenant, rung together'),
  timeout_seconds: z
    .int()
    .min(LIMITS.ringTimeoutSeconds.min)
    .max(LIMITS.ringTimeoutSeconds.max)
    .default(LIMITS.ringTimeoutSeconds.default)
    .describe('How long the reps ring before the next step runs'),
});

const aiStep = z.strictObject({
  type: z.literal('ai'),
  agent_id: z
    .string()
    .regex(idPattern('agt'), { message: 'An agent id (agt_…)' })
    .describe('An agent with a published version; its latest version is pinned when the policy is written'),
});

const voicemailStep = z.strictObject({ type: z.literal('voicemail'), greeting: multiLineText({ min: 1, max: LIMITS.greetingChars }) });

const hangupStep = z.strictObject({ type: z.literal('hangup') });

/**
 * Menus nested deeper than LIMITS.menuDepth, found in the raw document (a too-deep menu
 * may itself hold other problems; both are reported). A step is a menu when its type is
 * absent or "menu".
 */
function tooDeepMenus(body: unknown): (string | number)[][] {
  const found: (string | number)[][] = [];
  const list = (steps: unknown, path: (string | number)[], level: number) => {
    if (!Array.isArray(steps)) return;
    steps.forEach((s, i) => {
      if (!isPlainObject(s) || (s.type !== undefined && s.type !== 'menu')) return;
      const here = [...path, i];
      if (level > LIMITS.menuDepth) {
        found.push(here);
        return;
      }
      if (isPlainObject(s.branches)) for (const [key, b] of Object.entries(s.branches)) list(b, [...here, 'branches', key], level + 1);
      list(s.timeout_branch, [...here, 'timeout_branch'], level + 1);
    });
  };
  if (isPlainObject(body)) {
    list(body.open_steps, ['open_steps'], 1);
    list(body.closed_steps, ['closed_steps'], 1);
  }
  return found;
}

export const answeringPolicyUpsertRequest = z
  .strictObject({
    timezone: policyTimezone.describe("The tenant's own IANA zone; business hours and holiday dates are read in it"),
    business_hours: businessHours.default({}),
    holiday_dates: holidayDates.default([]).describe('Local dates (YYYY-MM-DD) on which closed_steps answer all day'),
    open_steps: z.array(answeringStep).min(1).max(LIMITS.openSteps),
    closed_steps: z.array(answeringStep).max(LIMITS.closedSteps).default([]),
  })
  .superRefine((body, ctx) => {
    for (const path of tooDeepMenus(body)) {
      ctx.addIssue({
        code: 'custom',
        path,
        message: `Menus may nest at most ${LIMITS.menuDepth} levels (the top-level menu is level 1)`,
        params: { type: 'menu_too_deep', ctx: { max_depth: LIMITS.menuDepth } },
      });
    }
  }, always)
  .superRefine((body, ctx) => {
    const bytes = Buffer.byteLength(JSON.stringify(body), 'utf8');
    if (bytes > LIMITS.documentBytes) {
      ctx.addIssue({
        code: 'custom',
        message: `The policy is ${bytes} bytes as JSON; at most ${LIMITS.documentBytes} are allowed`,
        params: { type: 'json_too_large', ctx: { max_bytes: LIMITS.documentBytes } },
      });
    }
  })
  .meta({ id: 'AnsweringPolicyUpsertRequest' });

/* ---- The stored / rendered form ---- */

const storedAnsweringStep: z.ZodType<PolicyStep> = z
  .lazy(() =>
    z.discriminatedUnion('type', [
      z.object({
        type: z.literal('menu'),
        prompt: z.string(),
        branches: z.partialRecord(z.enum(DTMF_KEYS), z.array(storedAnsweringStep)),
        timeout_seconds: z.int(),
        max_invalid_attempts: z.int(),
        timeout_branch: z.array(storedAnsweringStep),
      }),
      z.object({ type: z.literal('ring_humans'), rep_ids: z.array(z.string()), timeout_seconds: z.int() }),
      z.object({
        type: z.literal('ai'),
        agent_id: z.string(),
        agent_version_id: z.string().describe('The agent version pinned when this policy version was written; calls answered by this step use it'),
        agent_version: z.int().describe("That version's number"),
      }),
      z.object({ type: z.literal('voicemail'), greeting: z.string() }),
      z.object({ type: z.literal('hangup') }),
    ]),
  )
  .meta({ id: 'AnsweringPolicyStoredStep' });

export const answeringPolicyResource = z
  .object({
    id: z.string(),
    phone_number_id: z.string(),
    timezone: z.string(),
    business_hours: z.partialRecord(z.enum(WEEKDAYS), z.array(z.object({ start: z.string(), end: z.string() }))),
    holiday_dates: z.array(z.string()),
    open_steps: z.array(storedAnsweringStep),
    closed_steps: z.array(storedAnsweringStep),
    version: z.int().describe('Bumped on every write; carried in signed callback URLs so a call continues on the version it started with'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'AnsweringPolicy' });

export type AnsweringPolicy = z.infer<typeof answeringPolicyResource>;

/** 409 `number_ineligible`, with every reason the number cannot take a policy. */
export const numberIneligibleError = errorWith('NumberIneligibleError', {
  reasons: z.array(z.enum(INELIGIBLE_REASONS)).describe('With `number_ineligible`: why'),
});
