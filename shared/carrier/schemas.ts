/** The form fields carriers post to /carrier/twilio/* (Twilio's names; unknown fields are kept and signed, never refused). */
import * as z from 'zod';

const field = z.string().max(2000).optional();

export const twilioCallForm = z.looseObject({
  AccountSid: field,
  CallSid: field,
  From: field,
  To: field,
  CallStatus: field,
  Direction: field,
  CallDuration: field,
  AnsweredBy: field,
  SipResponseCode: field,
  Digits: field,
  DialCallStatus: field,
  RecordingUrl: field,
  RecordingDuration: field,
});

/** What Twilio posts to a <Connect action> URL when a ConversationRelay session ends. */
export const twilioRelayActionForm = twilioCallForm.extend({
  SessionId: field,
  SessionStatus: field,
  SessionDuration: field,
  // The runtime's `end` message may carry up to 8 KB of JSON; never refused for its length.
  HandoffData: z.string().max(16_000).optional(),
  ErrorCode: field,
  ErrorMessage: field,
});

/** TwiML documents are text. */
export const twimlDocument = z.string().meta({ id: 'TwiML', description: 'A TwiML document (text/xml)' });

/** Twilio's messaging webhook and message status callback fields (see docs/decisions/messaging.md). */
export const twilioMessageForm = z.looseObject({
  AccountSid: field,
  MessageSid: field,
  SmsSid: field,
  From: field,
  To: field,
  Body: field,
  NumSegments: field,
  MessageStatus: field,
  SmsStatus: field,
  ErrorCode: field,
  ErrorMessage: field,
});

/** A carrier's message id: SM (or MM) + 32 hex. */
export const MESSAGE_SID = /^[SM]M[0-9a-fA-F]{32}$/;
