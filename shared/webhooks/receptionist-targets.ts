/**
 * The fixed catalog of native receptionist outcomes (the contract): the tool an agent
 * used during a call and the event type its use is delivered as. Tenants bind them to their
 * one webhook endpoint; they cannot define commands, schemas or secrets of their own.
 */
import type { EventType } from '../events/outbox.js';

export interface ReceptionistTarget {
  id: string;
  outcome_type: string;
  event_type: EventType;
}

export const RECEPTIONIST_TARGETS: readonly ReceptionistTarget[] = [
  { id: 'rat_take_message', outcome_type: 'take_message', event_type: 'receptionist.message_taken' },
  { id: 'rat_open_ticket', outcome_type: 'open_ticket', event_type: 'receptionist.ticket_opened' },
  { id: 'rat_schedule_callback', outcome_type: 'schedule_callback', event_type: 'receptionist.callback_scheduled' },
  { id: 'rat_transfer_to_human', outcome_type: 'transfer_to_human', event_type: 'receptionist.transfer_requested' },
];

/** The event a conversation action of this tool commits, if it is a receptionist outcome. */
export const receptionistEventFor = (tool: string): EventType | undefined => RECEPTIONIST_TARGETS.find((t) => t.outcome_type === tool)?.event_type;
