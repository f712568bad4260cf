/**
 * The suppression list (internal do-not-call). Per number: an `ACTIVE` item exactly while
 * it is suppressed (a copy of the active entry, so one GetItem answers "suppressed?" and
 * names the entry), and every entry ever made as history. A contact's do_not_call is true
 * exactly when its number is suppressed: every add and lift updates the contact that holds
 * the number (the phone guard names it) in the same transaction, and contact creation
 * checks the ACTIVE item in its own (contacts.ts), so the two never disagree.
 *
 * Other writers (a call's opt-out, an SMS STOP, an import row) put `suppressionAddItems`
 * into their own transaction; `addSuppression` / `liftSuppression` are the API's.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGetMany } from '../db/batch-get.js';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction, noChange } from '../db/conditional-transaction.js';
import { contactKeys, suppressionKeys } from '../db/keys.js';
import { newId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import { RACE, type RetryPolicy } from '../retry.js';
import type { Suppression, SuppressionReason, SuppressionSource } from '../schemas/suppressions.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Who holds the number in the tenant, as the writer knows it at commit time:
 *  - `{ contactId }`: that contact's do_not_call is set in the same transaction;
 *  - `null`: no contact has it — checked (the phone guard must still be absent);
 *  - `'written'`: this same transaction writes the contact and sets do_not_call itself.
 */
export type PhoneHolder = { contactId: string } | null | 'written';

export class AlreadySuppressed extends Error {
  constructor(readonly suppressionId: string) {
    super('the number is already suppressed');
  }
}

const T = () => tableName();
/** A suppression add or lift that lost to another writer of the number: re-read a few times. */
const SUPPRESSION_RACE: RetryPolicy = { ...RACE, attempts: 5 };

export function newSuppression(
  input: { phone_e164: string; reason: SuppressionReason; note?: string | null; source: SuppressionSource; source_id: string | null },
  now: string,
): Suppression {
  return {
    id: newId('sup'),
    phone_e164: input.phone_e164,
    status: 'active',
    reason: input.reason,
    note: input.note ?? null,
    source: input.source,
    source_id: input.source_id,
    created_at: now,
    lifted_at: null,
    lift_note: null,
    lifted_by: null,
  };
}

const presentSuppression = (item: Record<string, unknown>): Suppression => {
  const s = item as unknown as Suppression;
  return {
    id: s.id,
    phone_e164: s.phone_e164,
    status: s.status,
    reason: s.reason,
    note: s.note ?? null,
    source: s.source,
    source_id: s.source_id ?? null,
    created_at: s.created_at,
    lifted_at: s.lifted_at ?? null,
    lift_note: s.lift_note ?? null,
    lifted_by: s.lifted_by ?? null,
  };
};

const setDoNotCall = (tenantId: string, contactId: string, value: boolean, now: string): TransactItem => ({
  Update: {
    TableName: T(),
    Key: contactKeys.contact(tenantId, contactId),
    UpdateExpression: 'SET do_not_call = :dnc, updated_at = :now',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':dnc': value, ':now': now },
  },
});

/** Nobody holds the number: the phone guard is still absent at commit (a contact created meanwhile cancels the write). */
const noHolderCheck = (tenantId: string, phone: string): TransactItem => ({
  ConditionCheck: { TableName: T(), Key: contactKeys.phone(tenantId, phone), ConditionExpression: 'attribute_not_exists(pk)' },
});

const holderItems = (tenantId: string, phone: string, holder: PhoneHolder, doNotCall: boolean, now: string): TransactItem[] =>
  holder === 'written' ? [] : holder === null ? [noHolderCheck(tenantId, phone)] : [setDoNotCall(tenantId, holder.contactId, doNotCall, now)];

/**
 * The TransactWriteItems elements that make `entry` the number's active suppression: the
 * ACTIVE item (only if absent: an already suppressed number cancels the transaction —
 * read `getActiveSuppression` first and add nothing when it is set), the history entry,
 * and the holder's do_not_call = true. The first element is the ACTIVE put.
 */
export function suppressionAddItems(tenantId: string, entry: Suppression, holder: PhoneHolder): TransactItem[] {
  const record = { tenant_id: tenantId, ...entry };
  return [
    {
      Put: {
        TableName: T(),
        Item: { ...suppressionKeys.active(tenantId, entry.phone_e164), type: 'suppression_active', suppression_id: entry.id, ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: T(),
        Item: {
          ...suppressionKeys.entry(tenantId, entry.phone_e164, entry.id),
          ...suppressionKeys.entryIndex(tenantId, entry.id),
          type: 'suppression',
          ...record,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...holderItems(tenantId, entry.phone_e164, holder, true, entry.created_at),
  ];
}

/** The elements that lift `active`: ACTIVE deleted (only if it still names it), the entry marked lifted, the holder's do_not_call = false. */
export function suppressionLiftItems(
  tenantId: string,
  active: Suppression,
  lift: { note: string; by: string; now: string },
  holder: PhoneHolder,
): TransactItem[] {
  return [
    {
      Delete: {
        TableName: T(),
        Key: suppressionKeys.active(tenantId, active.phone_e164),
        ConditionExpression: 'suppression_id = :id',
        ExpressionAttributeValues: { ':id': active.id },
      },
    },
    {
      Update: {
        TableName: T(),
        Key: suppressionKeys.entry(tenantId, active.phone_e164, active.id),
        UpdateExpression: 'SET #status = :lifted, lifted_at = :now, lift_note = :note, lifted_by = :by',
        ConditionExpression: '#status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':lifted': 'lifted', ':active': 'active', ':now': lift.now, ':note': lift.note, ':by': lift.by },
      },
    },
    ...holderItems(tenantId, active.phone_e164, holder, false, lift.now),
  ];
}

/**
 * For a write that creates the contact holding `phone`: the suppression state it read
 * (and set do_not_call from) still holds at commit.
 */
export const suppressionStateCheck = (tenantId: string, phone: string, suppressed: boolean): TransactItem => ({
  ConditionCheck: {
    TableName: T(),
    Key: suppressionKeys.active(tenantId, phone),
    ConditionExpression: suppressed ? 'attribute_exists(pk)' : 'attribute_not_exists(pk)',
  },
});

/** True for a transaction element that reads or writes a number's ACTIVE item (to read cancellation reasons). */
export const touchesActiveSuppression = (item: TransactItem): boolean =>
  (item.ConditionCheck?.Key?.sk ?? item.Put?.Item?.sk ?? item.Delete?.Key?.sk) === 'ACTIVE' &&
  String(item.ConditionCheck?.Key?.pk ?? item.Put?.Item?.pk ?? item.Delete?.Key?.pk).includes('#SUPPRESSION#');

/** The number's active entry, if it is suppressed: one strongly consistent GetItem (whether it is: suppression-state.ts). */
export async function getActiveSuppression(tenantId: string, phone: string): Promise<Suppression | undefined> {
  const out = await db().send(new GetCommand({ TableName: T(), Key: suppressionKeys.active(tenantId, phone), ConsistentRead: true }));
  return out.Item ? presentSuppression(out.Item) : undefined;
}

/** Which of `phones` are suppressed (BatchGetItem, strongly consistent, 100 keys a call). */
export async function suppressedAmong(tenantId: string, phones: readonly string[]): Promise<Set<string>> {
  const items = await batchGetMany(
    phones.map((p) => suppressionKeys.active(tenantId, p)),
    { fields: ['phone_e164'] },
  );
  return new Set([...items.values()].map((item) => item.phone_e164 as string));
}

/** The contact holding the number in the tenant (the phone guard), read strongly consistently. */
export async function phoneHolder(tenantId: string, phone: string): Promise<{ contactId: string } | null> {
  const out = await db().send(new GetCommand({ TableName: T(), Key: contactKeys.phone(tenantId, phone), ConsistentRead: true }));
  return out.Item ? { contactId: out.Item.contact_id as string } : null;
}

/** A cancellation caused by one of `ours` (the first `count` items) changing under us: read again and retry. */
const raced = (err: unknown, count: number): boolean =>
  err instanceof TransactionCanceledException &&
  (err.CancellationReasons ?? []).some((r, i) => r.Code === 'TransactionConflict' || (i < count && r.Code === 'ConditionalCheckFailed'));

/**
 * Suppress a number (the API's add): read its state and holder, write under conditions on
 * both, read again and retry when either changed meanwhile. `extra` joins the transaction
 * (e.g. the idempotency record).
 */
export async function addSuppression(
  tenantId: string,
  input: { phone_e164: string; reason: SuppressionReason; note?: string; source: SuppressionSource; source_id: string | null },
  at: Date,
  extra: (entry: Suppression) => TransactItem[] = () => [],
): Promise<Suppression> {
  let ours = 0;
  return conditionalTransaction<Suppression>({
    decide: async () => {
      const [active, holder] = await Promise.all([getActiveSuppression(tenantId, input.phone_e164), phoneHolder(tenantId, input.phone_e164)]);
      if (active) throw new AlreadySuppressed(active.id);
      const entry = newSuppression(input, at.toISOString());
      const items = suppressionAddItems(tenantId, entry, holder);
      ours = items.length;
      return commit([...items, ...extra(entry)], entry);
    },
    raced: (err) => raced(err, ours),
    policy: SUPPRESSION_RACE,
  });
}

/** Lift the number's active suppression (kept as history). Undefined when it is not suppressed. */
export async function liftSuppression(tenantId: string, phone: string, lift: { note: string; by: string }, at: Date): Promise<Suppression | undefined> {
  let ours = 0;
  return conditionalTransaction<Suppression | undefined>({
    decide: async () => {
      const [active, holder] = await Promise.all([getActiveSuppression(tenantId, phone), phoneHolder(tenantId, phone)]);
      if (!active) return noChange(undefined);
      const now = at.toISOString();
      const items = suppressionLiftItems(tenantId, active, { ...lift, now }, holder);
      ours = items.length;
      return commit(items, { ...active, status: 'lifted', lifted_at: now, lift_note: lift.note, lifted_by: lift.by });
    },
    raced: (err) => raced(err, ours),
    policy: SUPPRESSION_RACE,
  });
}

/** Every entry (active and lifted), newest first, through gsi1. */
export function listSuppressions(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: 'suppressions',
    indexPartition: suppressionKeys.entriesIndexPartition(tenantId),
    skPrefix: suppressionKeys.entriesIndexPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: presentSuppression,
  });
}
