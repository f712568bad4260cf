/**
 * Parking a scheduled call (a paused campaign's attempt; see docs/decisions/campaigns.md): its own due item moves
 * to `until` and nothing else changes — no new scheduled_for, no `call.scheduled` event (a
 * pause is the campaign's state, not a rescheduling of each attempt; webhook receivers hear
 * `campaign.paused` once). The scheduler brings it back at `until`; the dispatcher then
 * dials it if the campaign runs again, or parks it again.
 */
import { getCall } from '../repositories/calls.js';
import { dueInstantOf, moveDueItem, type OutboundCallRecord } from '../repositories/outbound-calls.js';

/** A few rounds: the scheduler may re-arm the same item meanwhile (a conditional write on due_at). */
const ROUNDS = 3;

/** true: parked (or the call moved on, nothing to do); false: gave up after ROUNDS lost races. */
export async function parkCall(call: OutboundCallRecord, until: string): Promise<boolean> {
  let current: OutboundCallRecord | undefined = call;
  for (let round = 0; round < ROUNDS; round++) {
    if (!current || current.state !== 'scheduled') return true;
    const instant = dueInstantOf(current);
    if (instant === until) return true;
    if (await moveDueItem(current, instant, until)) return true;
    current = (await getCall(call.tenant_id, call.id)) as unknown as OutboundCallRecord | undefined;
  }
  return false;
}
