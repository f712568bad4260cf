/**
 * Contact attempts: each queued call to a contact is an item `ATTEMPT#<att>` in the
 * contact's partition (`TENANT#<t>#CONTACT#<con>`). The compliance engine's "recent
 * attempts" input (`placed_at`, `subject` of calls placed in the 24 h before an instant)
 * is kept twice by the dial that places one (`attemptPlacedItems`, in its transaction): on
 * the attempt, and in the partition's day item of placements (`PLACED#<UTC day>`). What a
 * judgement reads of a contact (`readContactHistory`: the contact, its consents, its recent
 * placements; apart from contacts.ts so the call and text paths carry none of its write side)
 * is then three items by key — the contact item, which carries its consents' facts, and the
 * day items of `at` and of the day before — which a route folds into its credential's read.
 * A contact stored before it carried its consents (`history_keyed` absent) is read with one
 * Query over the partition's attempts, consents and contact instead.
 *
 * An attempt counts towards the frequency cap once it was placed (`placed_at` set at dial
 * time); a queued, deferred or blocked attempt has `placed_at: null` and never counts.
 * The queue-call transaction writes attempts with `contactAttemptPut` inside its queue transaction.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, type ItemKey, type ItemsByKey, itemAt } from '../db/batch-get.js';
import { tableName } from '../db/client.js';
import { contactKeys, contactPartition } from '../db/keys.js';
import { projectionOf, queryAll } from '../db/query.js';
import { isId } from '../ids.js';
import { FREQUENCY_CAP } from '../policy/compliance/state-rules.js';
import type { AttemptFacts, ConsentFacts } from '../policy/compliance/types.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** How far back attempts matter to the engine (the frequency cap's period). */
const ATTEMPT_LOOKBACK_MS = FREQUENCY_CAP.periodMs;
/** The item `type` of an attempt. */
const ATTEMPT_TYPE = 'contact_attempt';

/**
 * What the attempt item must hold for the engine; the queue-call transaction adds the rest of the
 * ContactAttempt (call_id, agent_version_id, state, compliance, telephony, questions, …).
 */
export interface ContactAttemptItem {
  /** `att_…` */
  id: string;
  tenant_id: string;
  contact_id: string;
  /** The compliance profile subject of the pinned agent version (the frequency cap counts per subject). */
  subject: string | null;
  /** When the carrier was asked to place the call; null until then. */
  placed_at: string | null;
  created_at: string;
  [field: string]: unknown;
}

/** The Put that stores a new attempt (only if absent), for the caller's own transaction. */
export function contactAttemptPut(attempt: ContactAttemptItem): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...contactKeys.attempt(attempt.tenant_id, attempt.contact_id, attempt.id), type: ATTEMPT_TYPE, ...attempt },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * The FilterExpression part that keeps only attempts placed in [at − 24 h, at] (the engine
 * narrows to (at − 24 h, at] itself). Names and values are merged into the caller's query.
 */
export function recentAttemptFilter(at: Date): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  return {
    // (A filter may not name the sort key, so attempts are told by their `type`.)
    expression: '(#itemType = :attemptType AND #placedAt BETWEEN :placedSince AND :placedUntil)',
    names: { '#itemType': 'type', '#placedAt': 'placed_at' },
    values: { ':attemptType': ATTEMPT_TYPE, ':placedSince': new Date(at.getTime() - ATTEMPT_LOOKBACK_MS).toISOString(), ':placedUntil': at.toISOString() },
  };
}

export const isAttemptItem = (item: Record<string, unknown>): boolean => typeof item.sk === 'string' && item.sk.startsWith(contactKeys.attemptsPrefix);

/** An attempt item as the engine sees it (attempts without a subject never match a profile's). */
export const attemptFactOf = (item: Record<string, unknown>): AttemptFacts => ({
  placed_at: item.placed_at as string,
  subject: (item.subject as string | null) ?? '',
});

/** The fields of a contact item a judgement reads (contacts.ts's ContactRecord is one). */
export interface ContactFacts {
  id: string;
  phone_e164: string;
  timezone?: string | null;
  jurisdictions?: string[];
}

export interface ContactHistory {
  contact: ContactFacts;
  consents: ConsentFacts[];
  /** Attempts placed in [at − 24 h, at]. */
  attempts: AttemptFacts[];
}

/**
 * What the history's mappers read of its three kinds of item (contact, consent, attempt), and
 * nothing else: an attempt item carries the whole ContactAttempt (its decision, telephony,
 * questions), and a contact called often has many.
 */
const HISTORY_FIELDS = [
  'pk',
  'sk',
  'id',
  'phone_e164',
  'timezone',
  'jurisdictions',
  'consent_basis',
  'scope',
  'captured_at',
  'expires_at',
  'placed_at',
  'subject',
] as const satisfies readonly (keyof ContactFacts | 'pk' | 'sk' | 'consent_basis' | 'scope' | 'captured_at' | 'expires_at' | keyof AttemptFacts)[];

/** A consent item as the engine sees it. */
const consentFactOf = (item: Record<string, unknown>): ConsentFacts => ({
  basis: item.consent_basis as ConsentFacts['basis'],
  scope: item.scope as ConsentFacts['scope'],
  captured_at: item.captured_at as string,
  expires_at: (item.expires_at as string | null | undefined) ?? null,
});

const CONTACT_FIELDS = ['id', 'phone_e164', 'timezone', 'jurisdictions'] as const satisfies readonly (keyof ContactFacts)[];

/** A day item of placements lives on past the two days it is read for (DynamoDB's TTL deletes it days later, never sooner). */
const PLACEMENTS_TTL_DAYS = 3;
const DAY_MS = 86_400_000;
const utcDayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** One placement as its day item keeps it. */
type PlacementEntry = {
  attempt_id: string;
  placed_at: string;
  subject: string | null;
};

/**
 * The dial's writes for an attempt it places at `placedAt` (both in the dial's transaction):
 * the attempt's `placed_at`, and the placement appended to its day's item (created with its
 * TTL by the first placement of the day; an append is atomic, so concurrent dials both count).
 */
export function attemptPlacedItems(
  attempt: { tenant_id: string; contact_id: string; attempt_id: string; subject: string | null },
  placedAt: string,
): TransactItem[] {
  const day = placedAt.slice(0, 10);
  const entry: PlacementEntry = { attempt_id: attempt.attempt_id, placed_at: placedAt, subject: attempt.subject };
  return [
    {
      Update: {
        TableName: tableName(),
        Key: contactKeys.attempt(attempt.tenant_id, attempt.contact_id, attempt.attempt_id),
        UpdateExpression: 'SET placed_at = :at, updated_at = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': placedAt },
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: contactKeys.placements(attempt.tenant_id, attempt.contact_id, day),
        UpdateExpression: 'SET #type = :type, #placements = list_append(if_not_exists(#placements, :none), :entry), #ttl = if_not_exists(#ttl, :ttl)',
        ExpressionAttributeNames: { '#type': 'type', '#placements': 'placements', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':type': 'contact_placements',
          ':none': [],
          ':entry': [entry],
          ':ttl': Math.floor((Date.parse(`${day}T00:00:00.000Z`) + PLACEMENTS_TTL_DAYS * DAY_MS) / 1000),
        },
      },
    },
  ];
}

/** The items a judgement at `at` reads of a contact: the contact item and the day items of `at` and of the day before. */
export function contactHistoryKeys(tenantId: string, contactId: string, at: Date): ItemKey[] {
  return [
    contactKeys.contact(tenantId, contactId),
    contactKeys.placements(tenantId, contactId, utcDayOf(at.getTime())),
    contactKeys.placements(tenantId, contactId, utcDayOf(at.getTime() - DAY_MS)),
  ];
}

/**
 * The history from the items of contactHistoryKeys (read by key, strongly consistent):
 * undefined when there is no such contact; null when the contact predates the items (read
 * it with queryContactHistory).
 */
function contactHistoryFrom(items: ItemsByKey, tenantId: string, contactId: string, at: Date): ContactHistory | undefined | null {
  const [contactKey, ...dayKeys] = contactHistoryKeys(tenantId, contactId, at);
  const item = itemAt(items, contactKey!);
  if (!item) return undefined;
  if (item.history_keyed !== true) return null;
  const since = at.getTime() - ATTEMPT_LOOKBACK_MS;
  const attempts = dayKeys
    .flatMap((k) => (itemAt(items, k)?.placements as PlacementEntry[] | undefined) ?? [])
    .filter((p) => {
      const placed = Date.parse(p.placed_at);
      return placed >= since && placed <= at.getTime();
    })
    .map(attemptFactOf);
  // The fields a judgement reads, as the Query's projection hands them (absent stays absent).
  const contact = Object.fromEntries(CONTACT_FIELDS.filter((f) => f in item).map((f) => [f, item[f]])) as unknown as ContactFacts;
  return { contact, consents: (item.consent_facts as ConsentFacts[] | undefined) ?? [], attempts };
}

/**
 * The contact, its consents and its attempts placed in the 24 h up to `at`, all strongly
 * consistent: three items by key (contactHistoryKeys), or one Query for a contact stored
 * before its items existed. undefined: no such contact.
 */
export async function readContactHistory(tenantId: string, contactId: string, at: Date): Promise<ContactHistory | undefined> {
  if (!isId(contactId)) return undefined;
  return contactHistoryIn(await batchGetItems(contactHistoryKeys(tenantId, contactId, at)), tenantId, contactId, at);
}

/** The history from items read with contactHistoryKeys (a route's own batch), or its Query when the contact predates them. */
export async function contactHistoryIn(items: ItemsByKey, tenantId: string, contactId: string, at: Date): Promise<ContactHistory | undefined> {
  const read = contactHistoryFrom(items, tenantId, contactId, at);
  return read === null ? queryContactHistory(tenantId, contactId, at) : read;
}

/**
 * The history of a contact stored before it carried its consents: ONE Query on the contact's
 * partition over `ATTEMPT#` … `CONTACT` (contactHistoryRange). undefined: no such contact.
 */
async function queryContactHistory(tenantId: string, contactId: string, at: Date): Promise<ContactHistory | undefined> {
  if (!isId(contactId)) return undefined;
  const attempts = recentAttemptFilter(at);
  const projection = projectionOf(HISTORY_FIELDS);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    // Keeps the contact, every consent, and attempts placed in [at − 24 h, at] (by `type`: a filter may not name sk).
    FilterExpression: `#itemType IN (:contactType, :consentType) OR ${attempts.expression}`,
    ProjectionExpression: projection.ProjectionExpression,
    ExpressionAttributeNames: { ...attempts.names, ...projection.ExpressionAttributeNames },
    ExpressionAttributeValues: {
      ...attempts.values,
      ':pk': contactPartition(tenantId, contactId),
      ':from': contactKeys.contactHistoryRange.from,
      ':to': contactKeys.contactHistoryRange.to,
      ':contactType': 'contact',
      ':consentType': 'consent',
    },
    ConsistentRead: true,
  });
  const contactSk = contactKeys.contact(tenantId, contactId).sk;
  const contact = items.find((i) => i.sk === contactSk) as ContactFacts | undefined;
  if (!contact) return undefined;
  const consents = items.filter((i) => typeof i.sk === 'string' && i.sk.startsWith(contactKeys.consentsPrefix)).map(consentFactOf);
  return { contact, consents, attempts: items.filter(isAttemptItem).map(attemptFactOf) };
}
