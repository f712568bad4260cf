/** The mobile receptionist surface: handoffs, their booking slots, the activity timeline. */
import * as z from 'zod';
import { errorWith, timestamp } from './common.js';
import { singleLineText } from './text.js';

export const handoffPath = z.object({ handoff_id: z.string().min(1).max(64) });

export const HANDOFF_KINDS = ['booking', 'callback'] as const;
export const HANDOFF_STATUSES = ['pending', 'confirmed', 'booked'] as const;

export const handoffResource = z
  .object({
    id: z.string(),
    call_id: z.string(),
    kind: z.enum(HANDOFF_KINDS).describe('booking: the caller asked for an appointment; callback: for a call back'),
    status: z.enum(HANDOFF_STATUSES).describe('pending until the carrier confirms the call; confirmed; booked'),
    confirmed_at: timestamp.nullable(),
    booking: z.object({ connection_id: z.string(), starts_at: timestamp, ends_at: timestamp, booked_at: timestamp }).nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ReceptionistHandoff' });

const handoffSlot = z.object({
  id: z.string().describe('Opaque; bound to this handoff; expires at expires_at'),
  starts_at: timestamp,
  ends_at: timestamp,
  expires_at: timestamp,
});
export const handoffAvailabilityResponse = z
  .object({ handoff_id: z.string(), timezone: z.string(), duration_minutes: z.int().min(5).max(240), slots: z.array(handoffSlot) })
  .meta({ id: 'HandoffAvailability' });

export const bookingRequest = z.strictObject({ slot_id: singleLineText({ min: 1, max: 2048 }) }).meta({ id: 'HandoffBookingRequest' });

const ACTIVITY_KINDS = ['live_call', 'voicemail', 'handoff', 'message'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const mobileActivity = z
  .object({
    id: z.string(),
    kind: z.enum(ACTIVITY_KINDS),
    resource_id: z.string().describe('The handoff, voicemail call, call or message'),
    occurred_at: timestamp,
    label: z.string().describe('A fixed short phrase; never what was said, typed or dialled'),
  })
  .meta({ id: 'MobileReceptionistActivity' });

export const handoffConflictError = errorWith('HandoffConflictError', {
  status: z.string().describe('With handoff_not_confirmed / handoff_already_booked: the handoff status'),
});
