/**
 * A message's status machine (SPEC Part 3: queued, sent, delivered, failed, received). Pure.
 * Outbound: queued → sent → delivered | failed, and queued → delivered | failed directly (a
 * late or lost `sent` callback); delivered and failed are terminal. Inbound messages are
 * `received` and never move. Carrier callbacks are replayed and reordered: a status at or
 * below the current rank changes nothing.
 */
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'failed', 'received'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

const RANK: Record<MessageStatus, number> = { queued: 0, sent: 1, delivered: 2, failed: 2, received: 3 };
export const isTerminal = (s: MessageStatus): boolean => s === 'delivered' || s === 'failed' || s === 'received';

/** Twilio's MessageStatus values → ours (accepted/scheduled/sending are still queued; read is delivered; undelivered is failed). */
export function statusOfCarrier(value: string | undefined): MessageStatus | undefined {
  switch (value) {
    case 'accepted':
    case 'scheduled':
    case 'queued':
    case 'sending':
      return 'queued';
    case 'sent':
      return 'sent';
    case 'delivered':
    case 'read':
      return 'delivered';
    case 'undelivered':
    case 'failed':
    case 'canceled':
      return 'failed';
    default:
      return undefined;
  }
}

/** The status a carrier report moves `from` to, or null when it changes nothing. */
export function nextStatus(from: MessageStatus, reported: MessageStatus): MessageStatus | null {
  if (isTerminal(from) || reported === 'received') return null;
  return RANK[reported] > RANK[from] ? reported : null;
}
