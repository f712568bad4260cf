/**
 * The voice runtime's events, stored in the call's partition (`EVENT#<event_id>`) together
 * with the call record's aggregates (shared/schemas/call-aggregates.ts) in ONE transaction:
 *   - each new event is a conditional put (attribute_not_exists): an id is stored once;
 *   - the call record is updated under a condition on the state and the event count it was
 *     computed from (optimistic: a concurrent writer makes us read again and retry), so the
 *     aggregates never double-count and the state only moves as the state machine says;
 *   - an opt-out adds the suppression entry (source "call", source_id the call) and sets the
 *     contact's do_not_call (suppressionAddItems) in that same transaction, so the very next
 *     preflight or dial of the number is blocked; when it newly suppresses the number, the
 *     `contact.opted_out` outbox event commits with it.
 * A replayed event id answers the result it was stored with; the same id with another body
 * is a conflict.
 */

import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { canonicalJson, contentHash } from '../canonical-json.js';
import { batchGetMany } from '../db/batch-get.js';
import { tableName } from '../db/client.js';
import { commit, conditionalTransaction, noChange } from '../db/conditional-transaction.js';
import { callKeys, callPartition } from '../db/keys.js';
import { queryCollection } from '../db/query.js';
import { conflict, DomainError, notFound, ValidationError } from '../errors.js';
import { outboxItems } from '../events/outbox.js';
import { isTerminal } from '../policy/call-state/machine.js';
import { CALL_ENDED, callEndedDetail, runtimeWindowOpen, usageBounds } from '../policy/call-state/runtime-window.js';
import { ACCEPTS_EVENTS, AGGREGATE_FIELDS, aggregatesOf, applyEvents, type EventResult, storedForm } from '../schemas/call-aggregates.js';
import { NUMBER_E164 } from '../schemas/phone.js';
import type { RuntimeEvent, TurnEvent } from '../schemas/runtime-events.js';
import { receptionistEventFor } from '../schemas/webhooks.js';
import { type CallRecord, getCall } from './calls.js';
import { handoffItems } from './handoffs.js';
import { getActiveSuppression, newSuppression, phoneHolder, suppressionAddItems } from './suppressions.js';
import { runtimeUsageLedgerItems } from './usage-ledger.js';
import { qualificationItems } from './workflow-outcomes.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export type { CallRecordWithEvents } from '../schemas/call-aggregates.js';

const T = () => tableName();

/** The contact's number on a call: the caller of an inbound call, the callee of an outbound one. */
const contactNumberOf = (call: Pick<CallRecord, 'direction' | 'from_e164' | 'to_e164'>): string =>
  call.direction === 'inbound' ? call.from_e164 : call.to_e164;

/** Checks an outcome against the pinned version (the repository knows nothing of agents). */
export type OutcomeCheck = (event: Extract<RuntimeEvent, { type: 'outcome' }>, index: number) => Promise<void>;

export interface RecordedEvents {
  call_id: string;
  results: EventResult[];
}

const fingerprint = (event: RuntimeEvent) => contentHash(JSON.parse(canonicalJson(event)));

async function storedEvents(tenantId: string, callId: string, ids: string[]): Promise<Map<string, Record<string, unknown>>> {
  const items = await batchGetMany(ids.map((id) => callKeys.event(tenantId, callId, id)));
  return new Map([...items.values()].map((item) => [item.event_id as string, item]));
}

const resultOf = (item: Record<string, unknown>): EventResult => ({
  id: item.event_id as string,
  type: item.event_type as EventResult['type'],
  seq: item.seq as number,
  received_at: item.received_at as string,
});

/**
 * Record a batch of events for a call (all or nothing). Throws 404 for an unknown call, 409
 * for a call that takes no events or a reused id with another body, 422 for a per-call limit.
 */
export async function recordCallEvents(
  tenantId: string,
  callId: string,
  events: readonly RuntimeEvent[],
  at: Date,
  checkOutcome?: OutcomeCheck,
): Promise<RecordedEvents> {
  const prints = events.map(fingerprint);
  return conditionalTransaction<RecordedEvents>({
    // Another writer got there first (an event, the call, or the number's suppression changed): read again.
    exhausted: () => conflict('call_busy', 'The call changed under every attempt to record these events; send the same batch again (its ids make it safe)'),
    decide: async () => {
      const call = await getCall(tenantId, callId);
      if (!call) throw notFound('Call');
      const stored = await storedEvents(
        tenantId,
        callId,
        events.map((e) => e.id),
      );
      events.forEach((e, i) => {
        const item = stored.get(e.id);
        if (item && item.fingerprint !== prints[i])
          throw conflict('event_id_reused', `Event ${e.id} was already recorded with a different body; a new event needs a new id`, { event_id: e.id });
      });
      const fresh = events.map((event, index) => ({ event, index })).filter(({ event }) => !stored.has(event.id));
      if (fresh.length === 0) return noChange({ call_id: callId, results: events.map((e) => resultOf(stored.get(e.id)!)) });
      if (!ACCEPTS_EVENTS.includes(call.state)) {
        throw new DomainError('conflict', 'call_not_in_conversation', `The call is ${call.state}: it never reached a person, so it takes no runtime events`);
      }
      if (!runtimeWindowOpen(call, at)) throw conflict(CALL_ENDED, callEndedDetail(call));
      if (checkOutcome) for (const { event, index } of fresh) if (event.type === 'outcome') await checkOutcome(event, index);

      const receivedAt = at.toISOString();
      const before = aggregatesOf(call as unknown as Record<string, unknown>);
      const applied = applyEvents(before, fresh, {
        state: call.state,
        receivedAt,
        bounds: usageBounds(call),
        outcomeFrozen: call.analysis !== undefined && call.analysis !== null,
      });
      if (!applied.ok) throw new ValidationError(applied.issues);

      const items: TransactItem[] = [];
      if (applied.optOut) {
        const phone = contactNumberOf(call);
        if (NUMBER_E164.test(phone)) {
          const active = await getActiveSuppression(tenantId, phone);
          if (active) {
            applied.aggregates.opt_out!.suppression_id = active.id;
          } else {
            const holder = await phoneHolder(tenantId, phone);
            const entry = newSuppression(
              { phone_e164: phone, reason: applied.optOut.reason, note: applied.optOut.text ?? `Asked in call ${callId}`, source: 'call', source_id: callId },
              receivedAt,
            );
            const add = suppressionAddItems(tenantId, entry, holder);
            items.push(...add);
            applied.aggregates.opt_out!.suppression_id = entry.id;
            // The number is newly suppressed: contact.opted_out commits with it (not when it already was).
            const optedOut = outboxItems(
              tenantId,
              'contact.opted_out',
              {
                phone_e164: phone,
                contact_id: holder?.contactId ?? (call as { contact_id?: string }).contact_id ?? null,
                reason: applied.optOut.reason,
                call_id: callId,
                suppression_id: entry.id,
                source: 'call',
                at: receivedAt,
              },
              new Date(receivedAt),
            );
            items.push(...optedOut.items);
          }
        }
      }

      // A receptionist outcome (take_message, open_ticket, …) commits its event with the action.
      for (const { event } of fresh) {
        if (event.type !== 'conversation_action') continue;
        const type = receptionistEventFor(event.kind);
        if (type)
          items.push(
            ...outboxItems(
              tenantId,
              type,
              {
                call_id: callId,
                direction: call.direction,
                contact_id: (call as { contact_id?: string }).contact_id ?? null,
                action_id: event.action_id,
                kind: event.kind,
                arguments: event.arguments ?? {},
                at: event.at ?? receivedAt,
              },
              new Date(receivedAt),
            ).items,
          );
      }

      // record_qualification → a workflow outcome (or an amendment of one) in this transaction.
      items.push(...(await qualificationItems(tenantId, call as CallRecord & { questions?: unknown }, fresh, receivedAt)));
      // An inbound caller's booking / callback request → a receptionist handoff.
      items.push(...handoffItems(tenantId, call, fresh, receivedAt));

      const freshResults = new Map(applied.results.map((r) => [r.id, r]));
      for (const { event } of fresh) {
        const r = freshResults.get(event.id)!;
        items.push({
          Put: {
            TableName: T(),
            Item: {
              ...callKeys.event(tenantId, callId, event.id),
              type: 'call_event',
              tenant_id: tenantId,
              call_id: callId,
              event_id: event.id,
              event_type: event.type,
              seq: r.seq,
              received_at: receivedAt,
              fingerprint: fingerprint(event),
              event: storedForm(event),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        });
      }
      items.push(callUpdate(call, applied.aggregates, applied.stateChange?.state ?? null, before.event_count, receivedAt));
      // The fresh usage events' quantities are final: metered in this same transaction.
      items.push(
        ...(await runtimeUsageLedgerItems(
          tenantId,
          call,
          fresh.map(({ event }) => event),
          new Date(receivedAt),
        )),
      );

      return commit(items, { call_id: callId, results: events.map((e) => freshResults.get(e.id) ?? resultOf(stored.get(e.id)!)) });
    },
  });
}

function callUpdate(call: CallRecord, aggregates: object, toState: string | null, eventCountBefore: number, now: string): TransactItem {
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':from': call.state, ':now': now };
  const sets = ['updated_at = :now'];
  for (const field of AGGREGATE_FIELDS) {
    names[`#${field}`] = field;
    values[`:${field}`] = (aggregates as Record<string, unknown>)[field];
    sets.push(`#${field} = :${field}`);
  }
  if (toState && !isTerminal(call.state)) {
    sets.push('#state = :to');
    values[':to'] = toState;
  }
  let condition = 'attribute_exists(pk) AND #state = :from';
  if (eventCountBefore === 0) condition += ' AND (attribute_not_exists(#event_count) OR #event_count = :zero)';
  else condition += ' AND #event_count = :count';
  values[eventCountBefore === 0 ? ':zero' : ':count'] = eventCountBefore;
  return {
    Update: {
      TableName: T(),
      Key: callKeys.call(call.tenant_id, call.id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** A stored turn event: its place in the call (`seq`) and the turn as stored. */
export interface StoredTurn {
  seq: number;
  turn: TurnEvent;
}

/**
 * Every turn of a call in the order the runtime reported them (by `seq`). Event items are
 * keyed by the runtime's event id, not by seq, so this reads the call's EVENT# range (at
 * most MAX_EVENTS_PER_CALL items, turn events only through the filter) and sorts.
 */
export async function callTurns(tenantId: string, callId: string): Promise<StoredTurn[]> {
  const items = await queryCollection(
    { pk: callPartition(tenantId, callId), prefix: 'EVENT#' },
    {
      FilterExpression: 'event_type = :turn',
      ProjectionExpression: 'seq, #event',
      ExpressionAttributeNames: { '#event': 'event' },
      ExpressionAttributeValues: { ':turn': 'turn' },
      ConsistentRead: true,
    },
  );
  return items.map((item) => ({ seq: item.seq as number, turn: item.event as TurnEvent })).sort((a, b) => a.seq - b.seq);
}

/** Every committed event item of a call (its `EVENT#` range), oldest first, strongly consistent. */
export function callEventRecords(tenantId: string, callId: string): Promise<Record<string, unknown>[]> {
  return queryCollection({ pk: callPartition(tenantId, callId), prefix: 'EVENT#' }, { ConsistentRead: true });
}
