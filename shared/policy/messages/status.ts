/**
 * A message's status machine (the contract: queued, sent, delivered, failed, received). Pure.
 * Outbound: queued → sent → delivered | failed, and queued → delivered | failed directly (a
 * late or lost `sent` callback); delivered and failed are terminal. Inbound messages are
 * `received` and never move. Carrier callbacks are replayed and reordered: a status at or
 * below the current rank changes nothing. One exception: a message the platform failed as
 * `send_unknown` (no SID, no known outcome) moves to sent or delivered when the carrier
 * reports it so — carrier truth wins over our unknown (docs/decisions/messaging.md).
 */
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'failed', 'received'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

const RANK: Record<MessageStatus, number> = { queued: 0, sent: 1, delivered: 2, failed: 2, received: 3 };
const isTerminal = (s: MessageStatus): boolean => s === 'delivered' || s === 'failed' || s === 'received';

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

/**
 * The status a carrier report moves `from` to, or null when it changes nothing.
 * `sendUnknown`: the message was failed by the platform as `send_unknown` (its carrier call
 * had no known outcome and no SID was ever recorded). That `failed` is our ignorance, not
 * the carrier's verdict: a report that the carrier sent or delivered it wins, once.
 */
export function nextStatus(from: MessageStatus, reported: MessageStatus, opts: { sendUnknown?: boolean } = {}): MessageStatus | null {
  if (opts.sendUnknown && from === 'failed' && (reported === 'sent' || reported === 'delivered')) return reported;
  if (isTerminal(from) || reported === 'received') return null;
  return RANK[reported] > RANK[from] ? reported : null;
}
