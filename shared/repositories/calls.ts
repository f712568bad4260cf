/**
 * Call records. This issue stores inbound calls (`direction: "inbound"`); the calls issue
 * adds outbound ones and the full state machine. A call gets a partition of its own and a
 * platform pointer from the carrier's CallSid, written in one transaction, so the first
 * webhook for a CallSid creates the call and a replay finds it.
 */

import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, onlyConflicted, tableName } from '../db/client.js';
import { commit, conditionalTransaction, type Decision, noChange, type TransactItem } from '../db/conditional-transaction.js';
import { callKeys, platformKeys } from '../db/keys.js';
import { queryPages } from '../db/query.js';
import { failedConditionIndex } from '../db/transact-write.js';
import { isId, newId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { type Page, queryPage } from '../pagination/page.js';
import { type CarrierStatus, isTerminal, onCarrierStatus } from '../policy/call-state/machine.js';
import type { CallRecord, InboundPathEntry } from '../schemas/call-record.js';
import { carrierCallPointerPut } from './call-sid-link.js';
import { addStateChange, callStateUpdate } from './call-state-update.js';
import { analysisWatchPut } from './call-watches.js';

export type { CallRecord, InboundPathEntry } from '../schemas/call-record.js';

/** A call may record at most this many steps (a caller looping in a menu stops being recorded, not served). */
const MAX_PATH_ENTRIES = 200;

export type NewInboundCall = Omit<CallRecord, 'id' | 'direction' | 'created_at' | 'updated_at' | 'recording_url' | 'ended_at' | 'duration_seconds'>;

/** Store an inbound call, or return the one this CallSid already made (a replayed webhook). */
/** The CallSid already names a call of another tenant or account. */
export class CallSidHeldElsewhere extends Error {
  constructor() {
    super('The CallSid belongs to a call of another account');
  }
}

/**
 * `withCall`: items other entities commit with the new call (the mobile timeline's live_call
 * entry), supplied by the caller so this store need not know them.
 */
export async function createInboundCall(
  input: NewInboundCall,
  now: Date,
  withCall: (call: CallRecord) => TransactItem[] = () => [],
): Promise<{ call: CallRecord; created: boolean }> {
  const at = now.toISOString();
  const call: CallRecord = {
    ...input,
    id: newId('cal'),
    direction: 'inbound',
    recording_url: null,
    ended_at: input.state === 'disposed' ? at : null,
    duration_seconds: null,
    created_at: at,
    updated_at: at,
  };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          carrierCallPointerPut(call, call.provider_call_sid),
          {
            Put: {
              TableName: tableName(),
              Item: { ...callKeys.call(call.tenant_id, call.id), ...callKeys.callIndex(call.tenant_id, call.id), type: 'call', ...withoutUnsetStamps(call) },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          ...withCall(call),
        ],
      }),
    );
    return { call, created: true };
  } catch (err) {
    if (!(err instanceof TransactionCanceledException) || err.CancellationReasons?.[0]?.Code !== 'ConditionalCheckFailed') throw err;
    const existing = await getCallBySid(call.provider_call_sid);
    if (!existing) throw err;
    // A replay of the same call finds it; a CallSid another tenant's call holds is not theirs to read.
    if (existing.tenant_id !== call.tenant_id || existing.telephony_account_id !== call.telephony_account_id) throw new CallSidHeldElsewhere();
    return { call: existing, created: false };
  }
}

/** Timestamps and the duration are stored only once known, so `if_not_exists` can set each exactly once. */
const STAMPS = ['answered_at', 'ended_at', 'duration_seconds'] as const;
const withoutUnsetStamps = (call: CallRecord) =>
  Object.fromEntries(Object.entries(call).filter(([k, v]) => !(STAMPS as readonly string[]).includes(k) || v !== null));

export async function getCallPointer(callSid: string): Promise<{ tenant_id: string; call_id: string; telephony_account_id: string } | undefined> {
  if (!/^CA[0-9a-fA-F]{32}$/.test(callSid)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.carrierCall(callSid), ConsistentRead: true }));
  return out.Item as { tenant_id: string; call_id: string; telephony_account_id: string } | undefined;
}

export async function getCallBySid(callSid: string): Promise<CallRecord | undefined> {
  const pointer = await getCallPointer(callSid);
  return pointer ? getCall(pointer.tenant_id, pointer.call_id) : undefined;
}

export async function getCall(tenantId: string, callId: string): Promise<CallRecord | undefined> {
  if (!isId(callId)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: callKeys.call(tenantId, callId), ConsistentRead: true }));
  if (!out.Item) return undefined;
  return {
    ...out.Item,
    answered_at: out.Item.answered_at ?? null,
    ended_at: out.Item.ended_at ?? null,
    duration_seconds: out.Item.duration_seconds ?? null,
  } as CallRecord;
}

/**
 * Append what a callback did to an inbound call's path, once per `dedupeKey` (a replayed
 * callback names the same key and appends nothing). The path is capped at MAX_PATH_ENTRIES.
 * A recording comes with `items` other entities commit with it, once (the same condition):
 * the voicemail's mobile timeline entry.
 */
export async function appendInboundPath(
  call: Pick<CallRecord, 'tenant_id' | 'id'>,
  dedupeKey: string,
  entries: InboundPathEntry[],
  at: Date,
  extra: { recording_url?: string; items?: TransactItem[] } = {},
): Promise<boolean> {
  const update = {
    TableName: tableName(),
    Key: callKeys.call(call.tenant_id, call.id),
    UpdateExpression: `SET inbound.#path = list_append(inbound.#path, :entries), updated_at = :now${extra.recording_url ? ', recording_url = :rec' : ''} ADD callbacks_seen :key`,
    ConditionExpression: 'attribute_exists(pk) AND NOT contains(callbacks_seen, :keyString) AND size(inbound.#path) < :max',
    ExpressionAttributeNames: { '#path': 'path' },
    ExpressionAttributeValues: {
      ':entries': entries,
      ':now': at.toISOString(),
      ':key': new Set([dedupeKey]),
      ':keyString': dedupeKey,
      ':max': MAX_PATH_ENTRIES,
      ...(extra.recording_url ? { ':rec': extra.recording_url } : {}),
    },
  };
  try {
    if (extra.items?.length) await db().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...extra.items] }));
    else await db().send(new UpdateCommand(update));
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    if (err instanceof TransactionCanceledException && err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
    throw err;
  }
}

/**
 * Apply a carrier status callback through the state machine (shared/policy/call-state):
 * the change is stored only if the call is still in the state it was computed from, so
 * replays and reordered callbacks change nothing. A call that already ended gains its
 * duration once (the final callback carries it). An inbound call an agent answered is
 * scored when it ends: its analysis watch commits with the ending (one transaction).
 */
export async function applyCarrierStatus(
  call: CallRecord,
  status: CarrierStatus,
  durationSeconds: number | null,
  now: Date,
  meter: MinutesMeter,
  onCompleted: CompletedItems = noItems,
): Promise<boolean> {
  // A transaction cancelled by a concurrent one (TransactionConflict: the shared client's own
  // retries spent, e.g. a hot usage total) wrote nothing: re-read the call and try again, as
  // the outbound path (applyCallTransition) and the runtime batch do, so the minutes this
  // final callback carries are not lost to a 500.
  return conditionalTransaction<boolean>({
    decide: async (attempt) => {
      const current = attempt === 1 ? call : await getCall(call.tenant_id, call.id);
      return current ? carrierStatusDecision(current, status, durationSeconds, now, meter, onCompleted) : noChange(false);
    },
    // The call moved meanwhile, or (a replayed final callback racing the first) its minutes are metered already.
    settle: (err) => (failedConditionIndex(err) >= 0 ? { result: false } : undefined),
    raced: onlyConflicted,
    exhausted: (_err, attempts) => new Error(`call ${call.id}: status transaction kept conflicting (${attempts} attempts)`),
  });
}

/**
 * Items another entity commits with a call the carrier ends as completed (its handoffs are
 * confirmed then). Supplied by the caller so this store need not know those entities.
 */
export type CompletedItems = (call: CallRecord, at: string) => Promise<TransactItem[]>;
const noItems: CompletedItems = async () => [];

/**
 * The usage-ledger items of a call's telephony minutes, committed with the transition that
 * first stores its duration (shared/repositories/usage-ledger.ts `callMinutesLedgerItems`):
 * supplied by the calls service, so this store does not bundle the billing rules.
 */
export type MinutesMeter = (
  tenantId: string,
  call: { id: string; telephony_account_id?: string | null },
  durationSeconds: number,
  at: Date,
) => Promise<TransactItem[]>;

async function carrierStatusDecision(
  call: CallRecord,
  status: CarrierStatus,
  durationSeconds: number | null,
  now: Date,
  meter: MinutesMeter,
  onCompleted: CompletedItems,
): Promise<Decision<boolean>> {
  const change = onCarrierStatus(call.state, status);
  const at = now.toISOString();
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':from': call.state, ':now': at };
  const sets = ['updated_at = :now'];
  if (change) {
    addStateChange({ sets, names, values }, change);
  }
  const ending = (change && isTerminal(change.state)) || isTerminal(call.state);
  if (ending && durationSeconds !== null) {
    sets.push('duration_seconds = if_not_exists(duration_seconds, :d)');
    values[':d'] = durationSeconds;
  }
  // The duration is stored once: the call's telephony minutes are final and metered with it.
  const metered = ending && durationSeconds !== null && call.duration_seconds === null ? await meter(call.tenant_id, call, durationSeconds, now) : [];
  if (sets.length === 1) return noChange(false);
  const scored = Boolean(change && isTerminal(change.state) && call.inbound?.agent_version_id);
  if (scored) {
    sets.push('analysis_watch_at = :watch');
    values[':watch'] = at;
  }
  const update = callStateUpdate(call, { sets, names, values });
  // The carrier confirms the call by ending it as completed: e.g. its pending handoffs are confirmed in this transaction.
  const confirmations = change?.state === 'completed' && call.provider_call_sid ? await onCompleted(call, at) : [];
  return commit([{ Update: update }, ...(scored ? [analysisWatchPut(call, at)] : []), ...metered, ...confirmations], true);
}

/** The tenant's calls in one of these states, a page at a time (gsi1 `TENANT#<t>#CALLS`; eventually consistent). */
export async function* callsInStates(tenantId: string, states: readonly string[]): AsyncGenerator<Record<string, unknown>[]> {
  const values = Object.fromEntries(states.map((s, i) => [`:s${i}`, s]));
  for await (const page of queryPages({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    FilterExpression: `#s IN (${Object.keys(values).join(', ')})`,
    ExpressionAttributeNames: { '#s': 'state' },
    ExpressionAttributeValues: { ':p': callKeys.callsIndexPartition(tenantId), ...values },
  })) {
    yield page.Items ?? [];
  }
}

/** A tenant's call records (outbound and inbound), newest first (gsi1 `TENANT#<t>#CALLS`); the calls service presents them. */
export function listCallRecords(
  tenantId: string,
  opts: { limit: number; cursor?: string; filters: FilterCondition[] },
): Promise<Page<Record<string, unknown>>> {
  return queryPage({
    tenantId,
    scope: 'calls',
    indexPartition: callKeys.callsIndexPartition(tenantId),
    skPrefix: 'CALL#',
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    // Fields a call gains as it goes are null until then, as the presenter reads them.
    map: (item) => ({ ...item, answered_at: item.answered_at ?? null, ended_at: item.ended_at ?? null, duration_seconds: item.duration_seconds ?? null }),
  });
}
