/**
 * Receptionist handoffs (mobile): an inbound call whose caller asked for a booking
 * (book_meeting) or a callback (schedule_callback) hands the request to the tenant's staff.
 *
 *   TENANT#<t>              HANDOFF#<hof>            the handoff: kind, call, status, booking
 *   call partition          HANDOFF#<action_id>      once per runtime action (put if absent)
 *   connection partition    SLOT#<cell start>        one booking per 15-minute grid cell on a calendar
 *
 * Status: `pending` until the carrier has confirmed the call (its signed status callback
 * ended it: state completed), then `confirmed` (set, with handoff.confirmed, in that status
 * callback's own transaction — `handoffConfirmationItems`; a handoff that transaction missed
 * is confirmed the first time a write route reads it after that), then `booked`. An
 * unconfirmed handoff cannot book.
 * Created in the runtime-events transaction (`handoffItems`) with handoff.created and its
 * timeline activity.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { callPartition, handoffKeys, integrationKeys } from '../db/keys.js';
import { queryCollection } from '../db/query.js';
import { outboxItems } from '../events/outbox.js';
import { isId, newId } from '../ids.js';
import type { HANDOFF_KINDS, HANDOFF_STATUSES } from '../schemas/mobile.js';
import type { RuntimeEvent } from '../schemas/runtime-events.js';
import { getCall } from './calls.js';
import type { ConnectionRecord } from './integration-connections.js';
import { activityItem } from './mobile-activity.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
const T = () => tableName();

const KIND_OF: Record<string, (typeof HANDOFF_KINDS)[number]> = { book_meeting: 'booking', schedule_callback: 'callback' };

interface Booking {
  connection_id: string;
  provider: string;
  starts_at: string;
  ends_at: string;
  slot_id: string;
  calendar_event_id: string;
  booked_at: string;
}

export interface Handoff {
  id: string;
  tenant_id: string;
  call_id: string;
  action_id: string;
  kind: (typeof HANDOFF_KINDS)[number];
  status: (typeof HANDOFF_STATUSES)[number];
  confirmed_at: string | null;
  booking: Booking | null;
  created_at: string;
  updated_at: string;
}

/**
 * At most this many handoffs per call: the staff act on a caller's request, not on every
 * repetition of it, and the runtime-events transaction must stay within DynamoDB's 100 items
 * (a handoff adds 5). Later requests are still recorded as conversation actions.
 */
const MAX_HANDOFFS_PER_CALL = 3;

/** The items a batch of fresh runtime events adds on an inbound call: a handoff per booking / callback request. */
export function handoffItems(
  tenantId: string,
  call: { id: string; direction: string; conversation_actions?: readonly { kind: string }[] },
  fresh: readonly { event: RuntimeEvent }[],
  receivedAt: string,
): TransactItem[] {
  if (call.direction !== 'inbound') return [];
  const items: TransactItem[] = [];
  let open = (call.conversation_actions ?? []).filter((a) => KIND_OF[a.kind]).length;
  for (const { event } of fresh) {
    if (event.type !== 'conversation_action' || !KIND_OF[event.kind]) continue;
    if (open++ >= MAX_HANDOFFS_PER_CALL) continue;
    const handoff: Handoff = {
      id: newId('hof'),
      tenant_id: tenantId,
      call_id: call.id,
      action_id: event.action_id,
      kind: KIND_OF[event.kind]!,
      status: 'pending',
      confirmed_at: null,
      booking: null,
      created_at: receivedAt,
      updated_at: receivedAt,
    };
    items.push(
      {
        Put: {
          TableName: T(),
          Item: { ...handoffKeys.byAction(tenantId, call.id, event.action_id), type: 'handoff_guard', handoff_id: handoff.id },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: T(),
          Item: { ...handoffKeys.handoff(tenantId, handoff.id), type: 'handoff', ...handoff },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...outboxItems(
        tenantId,
        'handoff.created',
        { handoff_id: handoff.id, call_id: call.id, kind: handoff.kind, status: handoff.status },
        new Date(receivedAt),
      ).items,
      activityItem(
        tenantId,
        { kind: 'handoff', resource_id: handoff.id, label: handoff.kind === 'booking' ? 'handoff_booking' : 'handoff_callback' },
        new Date(receivedAt),
      ),
    );
  }
  return items;
}

async function readHandoff(tenantId: string, handoffId: string): Promise<Handoff | undefined> {
  if (!isId(handoffId) || !handoffId.startsWith('hof_')) return undefined;
  const out = await db().send(new GetCommand({ TableName: T(), Key: handoffKeys.handoff(tenantId, handoffId), ConsistentRead: true }));
  return out.Item as Handoff | undefined;
}

/**
 * The handoff, confirmed first if the carrier has since confirmed its call (the call ended
 * through the carrier's signed status callback) and that callback's transaction did not
 * already confirm it (the fallback): one conditional update + handoff.confirmed.
 */
export async function getHandoff(tenantId: string, handoffId: string, now: Date, opts: { persist?: boolean } = {}): Promise<Handoff | undefined> {
  const handoff = await readHandoff(tenantId, handoffId);
  if (!handoff || handoff.status !== 'pending') return handoff;
  const call = await getCall(tenantId, handoff.call_id);
  if (call?.state !== 'completed' || !call.provider_call_sid) return handoff;
  const at = now.toISOString();
  const confirmedAt = call.ended_at ?? at; // when the carrier's callback ended the call
  // A read-only route shows what the next write will store.
  if (opts.persist === false) return { ...handoff, status: 'confirmed', confirmed_at: confirmedAt };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: confirmItems(tenantId, handoff, confirmedAt, at),
      }),
    );
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err; // confirmed by a concurrent read: fine
  }
  return readHandoff(tenantId, handoffId);
}

const confirmItems = (tenantId: string, h: Pick<Handoff, 'id' | 'call_id' | 'kind'>, confirmedAt: string, at: string): TransactItem[] => [
  {
    Update: {
      TableName: T(),
      Key: handoffKeys.handoff(tenantId, h.id),
      UpdateExpression: 'SET #status = :c, confirmed_at = :cat, updated_at = :at',
      ConditionExpression: '#status = :p',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':c': 'confirmed', ':p': 'pending', ':at': at, ':cat': confirmedAt },
    },
  },
  ...outboxItems(tenantId, 'handoff.confirmed', { handoff_id: h.id, call_id: h.call_id, kind: h.kind, status: 'confirmed' }, new Date(at)).items,
];

/**
 * The items that confirm a call's pending handoffs, for the carrier status callback's
 * transaction that ends the (inbound) call as completed: each pending handoff → confirmed
 * (conditional on `pending`) + handoff.confirmed. Reads only when the call asked for one
 * (its conversation actions name book_meeting / schedule_callback): a Query of the call's
 * HANDOFF# guards + a BatchGet of the handoffs (≤ MAX_HANDOFFS_PER_CALL). A handoff created
 * after this read is confirmed lazily (getHandoff).
 */
export async function handoffConfirmationItems(
  call: { tenant_id: string; id: string; direction: string; conversation_actions?: readonly { kind: string }[] },
  at: string,
): Promise<TransactItem[]> {
  if (call.direction !== 'inbound' || !(call.conversation_actions ?? []).some((a) => KIND_OF[a.kind])) return [];
  const guards = await queryCollection({ pk: callPartition(call.tenant_id, call.id), prefix: 'HANDOFF#' }, { ConsistentRead: true });
  const ids = guards
    .map((g) => g.handoff_id as string)
    .filter(Boolean)
    .slice(0, MAX_HANDOFFS_PER_CALL);
  if (!ids.length) return [];
  const out = await db().send(
    new BatchGetCommand({ RequestItems: { [T()]: { Keys: ids.map((id) => handoffKeys.handoff(call.tenant_id, id)), ConsistentRead: true } } }),
  );
  const handoffs = ((out.Responses?.[T()] ?? []) as Handoff[]).filter((h) => h.status === 'pending');
  // Unprocessed keys (throttling) are left to the lazy path rather than retried here.
  return handoffs.flatMap((h) => confirmItems(call.tenant_id, h, at, at));
}

export type BookResult = { kind: 'booked'; handoff: Handoff } | { kind: 'slot_taken' } | { kind: 'moved_on'; handoff: Handoff };

/** The grid availability offers slots on (UTC quarter hours: shared/policy/calendar/availability.ts). */
const SLOT_CELL_MS = 15 * 60_000;

/** The start instants of the 15-minute grid cells [startsAt, endsAt) covers (≤ 16 for the 240-minute maximum). */
function slotCells(startsAt: string, endsAt: string): string[] {
  const end = Date.parse(endsAt);
  const cells: string[] = [];
  for (let t = Math.floor(Date.parse(startsAt) / SLOT_CELL_MS) * SLOT_CELL_MS; t < end; t += SLOT_CELL_MS) cells.push(new Date(t).toISOString());
  return cells;
}

/**
 * Book a confirmed handoff on `connection` in one transaction: the handoff confirmed → booked
 * (with the booking), a lock put if absent on every 15-minute cell the slot covers (so two
 * overlapping slots — 09:00–10:00 and 09:15–10:15 — cannot both commit, whatever their
 * starts), a sandbox calendar's event, handoff.booked.
 */
export async function bookHandoff(
  tenantId: string,
  handoff: Handoff,
  connection: ConnectionRecord,
  slot: { startsAt: string; endsAt: string; slotId: string },
  calendarEventId: string,
  now: Date,
): Promise<BookResult> {
  const at = now.toISOString();
  const cells = slotCells(slot.startsAt, slot.endsAt);
  const booking: Booking = {
    connection_id: connection.id,
    provider: connection.provider,
    starts_at: slot.startsAt,
    ends_at: slot.endsAt,
    slot_id: slot.slotId,
    calendar_event_id: calendarEventId,
    booked_at: at,
  };
  const items: TransactItem[] = [
    {
      Update: {
        TableName: T(),
        Key: handoffKeys.handoff(tenantId, handoff.id),
        UpdateExpression: 'SET #status = :b, booking = :booking, updated_at = :at',
        ConditionExpression: '#status = :c',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':b': 'booked', ':c': 'confirmed', ':booking': booking, ':at': at },
      },
    },
    ...cells.map(
      (cell): TransactItem => ({
        Put: {
          TableName: T(),
          Item: {
            ...handoffKeys.slotLock(tenantId, connection.id, cell),
            type: 'slot_lock',
            handoff_id: handoff.id,
            starts_at: slot.startsAt,
            ends_at: slot.endsAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      }),
    ),
    ...outboxItems(
      tenantId,
      'handoff.booked',
      {
        handoff_id: handoff.id,
        call_id: handoff.call_id,
        kind: handoff.kind,
        status: 'booked',
        starts_at: slot.startsAt,
        ends_at: slot.endsAt,
        connection_id: connection.id,
      },
      new Date(at),
    ).items,
  ];
  if (connection.provider === 'sandbox_calendar') {
    items.push({
      Put: {
        TableName: T(),
        Item: {
          ...integrationKeys.sandboxEvent(tenantId, connection.id, slot.startsAt, calendarEventId),
          type: 'sandbox_calendar_event',
          starts_at: slot.startsAt,
          ends_at: slot.endsAt,
          handoff_id: handoff.id,
          summary: 'Booking from a receptionist call',
        },
      },
    });
  }
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
    const reasons = err.CancellationReasons ?? [];
    if (reasons[0]?.Code === 'ConditionalCheckFailed') return { kind: 'moved_on', handoff: (await readHandoff(tenantId, handoff.id))! };
    if (reasons.slice(1, 1 + cells.length).some((r) => r?.Code === 'ConditionalCheckFailed')) return { kind: 'slot_taken' };
    throw err;
  }
  return { kind: 'booked', handoff: (await readHandoff(tenantId, handoff.id))! };
}
