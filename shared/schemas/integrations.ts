/**
 * Integration (calendar) connections and calendar availability (the contract "Calendar
 * availability", IntegrationConnectionSummary). Token material is never representable here.
 */
import * as z from 'zod';
import { WEEKDAYS } from '../policy/answering/model.js';
import { MAX_DURATION_MINUTES, MAX_RANGE_DAYS, MIN_DURATION_MINUTES, rangeDays } from '../policy/calendar/availability.js';
import { businessWindow, policyTimezone } from './answering-policy.js';
import { errorWith, timestamp } from './common.js';
import { singleLineText } from './text.js';

const CALENDAR_PROVIDERS = ['google_calendar', 'sandbox_calendar'] as const;
export type CalendarProvider = (typeof CALENDAR_PROVIDERS)[number];
const CONNECTION_STATUSES = ['active', 'revoked', 'error'] as const;

const workingHours = z
  .strictObject(
    Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(businessWindow).max(6).default([])])) as Record<
      (typeof WEEKDAYS)[number],
      z.ZodDefault<z.ZodArray<typeof businessWindow>>
    >,
  )
  .meta({ id: 'WorkingHours', description: "Windows per weekday (HH:MM–HH:MM, at most 6 a day) in the connection's time zone; a day left out has none" });

export const integrationConnection = z
  .object({
    id: z.string(),
    provider: z.enum(CALENDAR_PROVIDERS),
    scopes: z.array(z.string()),
    status: z
      .enum(CONNECTION_STATUSES)
      .describe('active: usable; revoked: disconnected (DELETE) — kept for the audit trail; error: the provider refused our refresh token (reconnect)'),
    timezone: z.string().describe('IANA zone of the working hours; the default zone of availability answers'),
    working_hours: workingHours,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'IntegrationConnectionSummary' });
export type IntegrationConnection = z.infer<typeof integrationConnection>;

const connectionSettings = {
  timezone: policyTimezone.optional().describe('Default America/New_York'),
  working_hours: workingHours.optional().describe('Default Monday–Friday 09:00–17:00'),
};

export const connectSandboxRequest = z.strictObject({ provider: z.literal('sandbox_calendar'), ...connectionSettings }).meta({
  id: 'IntegrationConnectionCreateRequest',
  description: 'Connects a sandbox calendar at once (no OAuth). Google Calendar connects through /v1/integration-connections/oauth/start',
});
export const oauthStartRequest = z.strictObject({ provider: z.literal('google_calendar'), ...connectionSettings }).meta({ id: 'OAuthStartRequest' });
export const oauthStartResponse = z.object({ authorize_url: z.string(), state_expires_at: timestamp }).meta({ id: 'OAuthStartResponse' });
/**
 * What Google's redirect back carries. Not strict: Google adds parameters of its own (`hd`,
 * `authuser`, `prompt`, `scope`, and more over time), and refusing an unknown one would throw
 * away a consent the user just gave; unknown parameters are ignored (oauth4webapi validates
 * the response from the raw query string).
 */
export const oauthCallbackQuery = z.object({
  state: singleLineText({ min: 1, max: 200 }),
  code: singleLineText({ min: 1, max: 2048 }).optional(),
  error: singleLineText({ max: 200 }).optional(),
  error_description: singleLineText({ max: 2000 }).optional(),
  scope: singleLineText({ max: 2000 }).optional(),
  iss: singleLineText({ max: 500 }).optional(),
  authuser: singleLineText({ max: 20 }).optional(),
  prompt: singleLineText({ max: 50 }).optional(),
});
export const connectionUpdateRequest = z.strictObject(connectionSettings).meta({ id: 'IntegrationConnectionUpdateRequest' });
export const connectionPath = z.object({ connection_id: z.string().min(1).max(64) });

export const isoDate = z.iso.date().describe('YYYY-MM-DD');
const durationMinutes = z.int().min(MIN_DURATION_MINUTES).max(MAX_DURATION_MINUTES);
/** end_date on or after start_date, at most MAX_RANGE_DAYS apart (also the voice runtime's check_calendar arguments). */
export const rangeCheck = (b: { start_date: string; end_date: string }, ctx: z.RefinementCtx) => {
  let days: number;
  try {
    days = rangeDays(b.start_date, b.end_date);
  } catch {
    return;
  }
  if (days < 1)
    ctx.addIssue({
      code: 'custom',
      path: ['end_date'],
      message: 'end_date must not be before start_date',
      input: b.end_date,
      params: { type: 'date_range_reversed' },
    });
  else if (days > MAX_RANGE_DAYS)
    ctx.addIssue({
      code: 'custom',
      path: ['end_date'],
      message: `The range may span at most ${MAX_RANGE_DAYS} days`,
      input: b.end_date,
      params: { type: 'date_range_too_long', ctx: { max_days: MAX_RANGE_DAYS } },
    });
};

export const availabilityRequest = z
  .strictObject({
    start_date: isoDate,
    end_date: isoDate,
    duration_minutes: durationMinutes,
    timezone: policyTimezone.optional().describe("Default: the connection's"),
  })
  .superRefine(rangeCheck)
  .meta({ id: 'CalendarAvailabilityRequest' });

const availabilitySlot = z.object({ starts_at: timestamp, ends_at: timestamp });
export const availabilityResponse = z
  .object({ connection_id: z.string(), timezone: z.string().nullable(), slots: z.array(availabilitySlot) })
  .meta({ id: 'CalendarAvailability' });

export const handoffAvailabilityRequest = z
  .strictObject({ start_date: isoDate, end_date: isoDate, duration_minutes: durationMinutes, timezone: policyTimezone })
  .superRefine(rangeCheck)
  .meta({ id: 'HandoffAvailabilityRequest', description: 'No call, contact, attendee, connection or calendar field: all come from the handoff' });

export const calendarNotConnectedError = errorWith('CalendarNotConnectedError', {});
