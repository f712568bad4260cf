/**
 * An outbound call's moves after it was queued (shared/repositories/outbound-calls.ts): the
 * conditional state transition and the carrier's call id once the dial is answered. At most
 * once: the only way to dial is the transition scheduled → dialing, written with a dialing
 * watch; the carrier's call id, once known, is stored with its platform pointer
 * (`recordProviderSid`) and the watch goes. A watch left behind (a crash, CarrierUnavailable)
 * is the reconciler's to fail.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.js';
import type { StateChange } from '../policy/call-state/machine.js';
import { callSidLinkItems } from './call-sid-link.js';
import { addStateChange, callStateUpdate } from './call-state-update.js';
import { dialingWatchDelete, type OutboundCallRecord } from './outbound-calls.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * The Update that applies a state-machine change to the call, only if it is still in `from`
 * (another worker's change makes it fail). `extra` sets more fields (name → value).
 */
export function callTransition(
  call: Pick<OutboundCallRecord, 'tenant_id' | 'id'>,
  from: string,
  change: StateChange,
  at: Date,
  extra: Record<string, unknown> = {},
): TransactItem {
  const { sets, names, values } = addStateChange({ sets: ['updated_at = :now'], names: {}, values: { ':from': from, ':now': at.toISOString() } }, change);
  Object.entries(extra).forEach(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:f${i}`] = v;
    sets.push(`#f${i} = :f${i}`);
  });
  return { Update: callStateUpdate(call, { sets, names, values }) };
}

/**
 * The carrier answered the dial with its call id: the pointer callbacks find the call by, the
 * sid on the call, the dialing watch gone and an unfinished watch in its place (the carrier
 * has the call now; its terminal transition deletes it) — one transaction.
 */
export async function recordProviderSid(
  call: Pick<OutboundCallRecord, 'tenant_id' | 'id' | 'telephony_account_id'>,
  sid: string,
  dialingAt: string,
  at: Date,
): Promise<boolean> {
  const since = at.toISOString();
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          ...callSidLinkItems(call, sid, { telephony: true, watchAt: since, updatedAt: since, sameSidOk: false }),
          dialingWatchDelete(call.tenant_id, call.id, dialingAt),
        ],
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof TransactionCanceledException && (err.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed')) return false;
    throw err;
  }
}
