/**
 * A carrier status callback applied to the call it names, in either direction: an outbound
 * call through its lifecycle transaction (disposition, outbox events), an inbound one through
 * the state machine with its pending handoffs confirmed in the same transaction when the
 * carrier ends it as completed. A call that ended is then handed to `callEnded` (an inbound
 * one only when an agent answered it: only those are scored).
 */

import { now } from '../clock.js';
import { type CarrierStatus, isTerminal, onCarrierStatus } from '../policy/call-state/machine.js';
import { applyOutboundStatus } from '../repositories/call-lifecycle.js';
import { applyCarrierStatus, type CallRecord } from '../repositories/calls.js';
import { handoffConfirmationItems } from '../repositories/handoffs.js';
import { callMinutesLedgerItems } from '../repositories/usage-ledger.js';
import { callEnded, campaignSlotFreed } from './call-ended.js';

export async function applyCallStatus(call: CallRecord, status: CarrierStatus, durationSeconds: number | null): Promise<void> {
  if (call.direction === 'outbound') {
    const result = await applyOutboundStatus(call, status, durationSeconds, now(), callMinutesLedgerItems);
    if (result?.ended) await callEnded(call);
    else if (result?.slotFreed) await campaignSlotFreed(call);
    return;
  }
  const ends = onCarrierStatus(call.state, status);
  const applied = await applyCarrierStatus(call, status, durationSeconds, now(), callMinutesLedgerItems, handoffConfirmationItems);
  if (applied && ends && isTerminal(ends.state) && call.inbound?.agent_version_id) await callEnded(call);
}
