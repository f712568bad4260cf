/**
 * What a caller says on an inbound sandbox call once the agent picks up (the receptionist's
 * side of `npm run admin -- sandbox call … --script <name>`), pure and as data, in the same
 * event vocabulary as the outbound test-number conversations (shared/sandbox/conversation.ts)
 * so the sandbox runtime reports both the same way:
 *   - booking: the caller asks for an appointment; the agent checks the calendar, offers a
 *     slot, reads it back, the caller confirms and the agent books it (book_meeting);
 *   - enquiry: the caller asks a question, gets an answer, and hangs up (the default).
 * Tools are used only when the pinned version grants them.
 */
import type { ConversationEvent, PinnedAgentView, SequencedEvent } from './conversation.js';

export const INBOUND_SCRIPTS = ['enquiry', 'booking'] as const;
export type InboundScript = (typeof INBOUND_SCRIPTS)[number];
export const DEFAULT_INBOUND_SCRIPT: InboundScript = 'enquiry';

const businessOf = (config: Record<string, unknown>) =>
  typeof config.business_name === 'string' && config.business_name ? config.business_name : 'our office';
const greeting = (config: Record<string, unknown>) =>
  typeof config.opener === 'string' && config.opener
    ? config.opener
    : `Thank you for calling ${businessOf(config)}. This call may be handled by an automated assistant.`;

/** The slot the sandbox receptionist offers: tomorrow (UTC) at 15:00, 30 minutes. */
export const offeredSlot = (at: Date) => ({
  starts_at: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1, 15)).toISOString(),
  duration_minutes: 30,
});

/**
 * `slot`: what check_calendar answered (the first free slot of the tenant's connected calendar,
 * through the runtime's check_calendar route); without one, offeredSlot(at).
 */
export function inboundScriptEvents(
  script: InboundScript,
  input: { version: PinnedAgentView; at: Date; slot?: { starts_at: string; duration_minutes: number } },
): SequencedEvent[] {
  const { version } = input;
  const events: ConversationEvent[] = [];
  const say = (speaker: 'agent' | 'callee', text: string) => events.push({ type: 'turn', speaker, text });
  const tool = (name: string, args: Record<string, unknown>) => {
    if (version.tools.includes(name)) events.push({ type: 'tool_call', tool: name, arguments: args });
  };
  const objective = (id: string, value: string) => {
    if (version.objectives.some((o) => o.id === id)) events.push({ type: 'response', source: 'objective', id, value });
  };
  const text = greeting(version.disclosure_config);

  events.push({ type: 'disclosure', text });
  say('agent', `${text} How can I help you today?`);
  objective('greet', 'Greeted the caller');

  if (script === 'booking') {
    const slot = input.slot ?? offeredSlot(input.at);
    const when = new Date(slot.starts_at);
    const spoken = `${when.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' })} at ${when.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' })} UTC`;
    say('callee', "Hi, I'd like to book an appointment, please.");
    objective('understand_need', 'Wants to book an appointment');
    say('agent', 'Of course. What day and time would suit you?');
    say('callee', 'Tomorrow afternoon if possible, around three.');
    tool('check_calendar', { date: slot.starts_at.slice(0, 10), after: '12:00' });
    say('agent', `I have ${spoken} available for thirty minutes. Shall I book that for you?`);
    say('callee', 'Yes, please book it.');
    tool('book_meeting', { outcome: 'booked', appointment: slot, caller_confirmed: true });
    say('agent', `You're booked for ${spoken}. Is there anything else?`);
    objective('resolve', `Booked ${slot.starts_at}`);
    say('callee', "No, that's all. Thank you!");
    say('agent', 'Thank you for calling. Goodbye.');
    tool('end_call', {});
    events.push({ type: 'hangup', by: 'agent' });
  } else {
    say('callee', 'Hi, what are your opening hours on Saturday?');
    objective('understand_need', 'Asked about Saturday opening hours');
    say('agent', "We're open from nine to one on Saturdays. Is there anything else I can help with?");
    objective('resolve', 'Answered the question');
    say('callee', "No, that's it. Thanks, bye.");
    events.push({ type: 'hangup', by: 'callee' });
  }
  return events.map((e, seq) => ({ ...e, seq }));
}
