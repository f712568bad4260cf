/**
 * The call path's second read: once the contact's number and the tenant's numbers are
 * known, every remaining point read a call judgement needs in ONE strongly consistent
 * BatchGetItem — the agent item (its latest version's number and immutable id), the
 * number's suppression ACTIVE item, the area code's National DNC pointer (marketing to a
 * US number: whether the rules apply is known only once the version is) and the telephony
 * accounts the numbers belong to. Nothing here is cached: each read sees every write
 * committed before it.
 */
import { batchGetItems, type ItemKey, type ItemsByKey, itemAt } from '../db/batch-get.js';
import { type AgentHead, agentHeadOf, agentItemKey } from './agent-heads.js';
import { type CallerAccountFacts, callerAccountKey, callerAccountOf } from './caller-pool.js';
import { dncPointerKey } from './dnc-facts.js';
import { activeSuppressionKey } from './suppression-state.js';

/** At most this many accounts join the batch (100 keys a call, 3 of them ours); more are read by the caller's Query. */
export const MAX_BATCHED_ACCOUNTS = 90;

export interface CallPointReads {
  tenantId: string;
  /** Read the agent item (omitted when the caller holds a pinned version). */
  agentId?: string;
  phone: string;
  /** The US area code of the number, whose National DNC pointer is read (null: not a US number). */
  dncAreaCode: string | null;
  /** The accounts of the tenant's numbers (≤ MAX_BATCHED_ACCOUNTS). */
  accountIds: readonly string[];
}

export interface CallPointFacts {
  /** undefined: no such agent (or none asked). */
  agent: AgentHead | undefined;
  /** The number has an ACTIVE suppression item. */
  suppressed: boolean;
  /** The area code's DNC pointer item as read (dncFactsAfterPointer goes on from it); undefined: none loaded or not asked. */
  dncPointer: Record<string, unknown> | undefined;
  accounts: CallerAccountFacts[];
}

function pointKeys(r: CallPointReads) {
  if (r.accountIds.length > MAX_BATCHED_ACCOUNTS) throw new RangeError(`at most ${MAX_BATCHED_ACCOUNTS} accounts are read in the batch`);
  const agentKey = r.agentId ? agentItemKey(r.tenantId, r.agentId) : undefined;
  const suppressionKey = activeSuppressionKey(r.tenantId, r.phone);
  const pointerKey = r.dncAreaCode ? dncPointerKey(r.dncAreaCode) : undefined;
  const accountKeys = [...new Set(r.accountIds)].map((id) => callerAccountKey(r.tenantId, id));
  return {
    agentKey,
    suppressionKey,
    pointerKey,
    accountKeys,
    all: [...(agentKey ? [agentKey] : []), suppressionKey, ...(pointerKey ? [pointerKey] : []), ...accountKeys],
  };
}

/** The keys readCallPointFacts reads, for a caller that reads them in a BatchGetItem of its own (then callPointFactsOf). */
export const callPointKeys = (r: CallPointReads): ItemKey[] => pointKeys(r).all;

export async function readCallPointFacts(r: CallPointReads): Promise<CallPointFacts> {
  return callPointFactsOf(r, await batchGetItems(pointKeys(r).all));
}

/** The facts of `r` from items read strongly consistently with (at least) callPointKeys(r); an item not there is absent. */
export function callPointFactsOf(r: CallPointReads, items: ItemsByKey): CallPointFacts {
  const { agentKey, suppressionKey, pointerKey, accountKeys } = pointKeys(r);
  const agentItem = agentKey && itemAt(items, agentKey);
  return {
    agent: agentItem ? agentHeadOf(agentItem) : undefined,
    suppressed: itemAt(items, suppressionKey) !== undefined,
    dncPointer: pointerKey && itemAt(items, pointerKey),
    accounts: accountKeys
      .map((k) => itemAt(items, k))
      .filter((i) => i !== undefined)
      .map(callerAccountOf),
  };
}
