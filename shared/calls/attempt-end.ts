/**
 * An attempt's end in its terminal transaction: the final call.completed event and, for a
 * campaign attempt, the campaign's share (its row and counters) in the same transaction, so
 * each attempt is counted exactly once (see docs/decisions/campaigns.md).
 */
import { campaignEndItems } from '../repositories/campaign-attempt-items.js';
import type { OutboundCallRecord } from '../repositories/outbound-calls.js';
import { completedEvent } from './call-outbox-events.js';

export const attemptEndItems = (
  call: OutboundCallRecord,
  end: { state: string; disposition: string | null; disposition_set_by: string | null; end_reason: string | null },
  at: Date,
) => [...completedEvent(call, end, at), ...campaignEndItems(call, end, at)];
