/**
 * Contacts and their consent records. A contact, its phone guard (uniqueness within the
 * tenant), its first consent record and any list membership are written in ONE
 * transaction, so a contact never exists without its consent or twice for one number.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { z } from 'zod';
import { db, tableName } from '../db/client.js';
import { collections, contactKeys, contactPartition, keys } from '../db/keys.js';
import { isId, newId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { type Page, queryPage } from '../pagination/page.js';
import { addsToConsents } from '../policy/compliance/consent.js';
import type { ConsentFacts } from '../policy/compliance/types.js';
import { bestConsentClass, type ConsentBasis, compactGrants, isConsentValid } from '../policy/consent-strength.js';
import type { consentInput, consentRecordResource, contactFields, contactResource } from '../schemas/contacts.js';
import type { Suppression } from '../schemas/suppressions.js';
import type { Attestation } from './attestations.js';
import { suppressionAddItems, suppressionStateCheck, touchesActiveSuppression } from './suppressions.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Fields = { [K in keyof typeof contactFields]?: z.output<(typeof contactFields)[K]> };
export type ContactFields = Fields;
export type ConsentInput = z.output<typeof consentInput>;

export interface ContactRecord extends Fields {
  id: string;
  tenant_id: string;
  phone_e164: string;
  do_not_call: boolean;
  /**
   * Compact copy of the consents' bases and expiries, so best_consent_class needs no extra
   * read: per basis only the longest-lasting grant (compactGrants), so the contact item
   * stays bounded however many consents it gathers; every consent record is its own item.
   */
  consent_grants: ConsentGrantRef[];
  /**
   * Every consent's facts as the compliance engine reads them, so a judgement reads the contact
   * by key with its consents (contact-attempts.ts), while `history_keyed` is true: set at
   * creation, removed when the list would pass MAX_KEYED_CONSENTS (a judgement then queries the
   * consent items). Absent on a contact stored before the list existed.
   */
  consent_facts?: ConsentFacts[];
  history_keyed?: boolean;
  created_at: string;
  updated_at: string;
}

/** The most consents a contact item carries for its judgements; past it they are read as items. */
export const MAX_KEYED_CONSENTS = 50;

interface ConsentGrantRef {
  consent_id: string;
  basis: ConsentBasis;
  expires_at: string | null;
}

export interface ConsentRecord extends Omit<ConsentInput, 'expires_at' | 'disclosure_text_shown'> {
  id: string;
  contact_id: string;
  tenant_id: string;
  expires_at: string | null;
  disclosure_text_shown: string | null;
  attestation: Attestation;
  created_at: string;
}

export class DuplicatePhone extends Error {
  constructor(readonly contactId: string) {
    super('a contact with this phone number already exists');
  }
}
export class UnknownOwner extends Error {}
/** The number was suppressed or lifted between the read and the write: read again and retry. */
export class SuppressionChanged extends Error {}

/**
 * The number's suppression at creation: as read before the write (`suppressed`, held by a
 * ConditionCheck at commit), or an entry this same transaction adds (`add`). do_not_call
 * follows it, so a contact is never created disagreeing with the suppression list.
 */
export type SuppressionAtCreate = { suppressed: boolean } | { add: Suppression };

const T = () => tableName();

export function buildConsent(tenantId: string, contactId: string, input: ConsentInput, attestation: Attestation, now: string): ConsentRecord {
  return {
    id: newId('cns'),
    contact_id: contactId,
    tenant_id: tenantId,
    consent_basis: input.consent_basis,
    captured_at: new Date(input.captured_at).toISOString(),
    scope: input.scope,
    evidence: input.evidence,
    disclosure_text_shown: input.disclosure_text_shown ?? null,
    expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
    attestation,
    created_at: now,
  };
}

const grantOf = (c: ConsentRecord): ConsentGrantRef => ({ consent_id: c.id, basis: c.consent_basis, expires_at: c.expires_at });
const factsOf = (c: ConsentRecord): ConsentFacts => ({ basis: c.consent_basis, scope: c.scope, captured_at: c.captured_at, expires_at: c.expires_at });

export interface NewContact {
  contact: ContactRecord;
  consent: ConsentRecord;
  /** Index of the phone-guard put, and of the owner check if any, for reading cancellations. */
  items: TransactItem[];
}

/** The transaction items that create a contact with its consent (and optional list membership). */
export function newContactItems(
  tenantId: string,
  input: { phone_e164: string } & Fields,
  consentIn: ConsentInput,
  attestation: Attestation,
  opts: { now: string; listId?: string; suppression: SuppressionAtCreate },
): NewContact {
  const id = newId('con');
  const consent = buildConsent(tenantId, id, consentIn, attestation, opts.now);
  const suppression = opts.suppression;
  const contact: ContactRecord = {
    ...input,
    id,
    tenant_id: tenantId,
    do_not_call: 'add' in suppression || suppression.suppressed,
    consent_grants: [grantOf(consent)],
    consent_facts: [factsOf(consent)],
    history_keyed: true,
    created_at: opts.now,
    updated_at: opts.now,
  };
  const items: TransactItem[] = [
    {
      Put: {
        TableName: T(),
        Item: { ...contactKeys.phone(tenantId, input.phone_e164), type: 'contact_phone', contact_id: id },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    {
      Put: {
        TableName: T(),
        Item: { ...contactKeys.contact(tenantId, id), ...contactKeys.contactIndex(tenantId, id), type: 'contact', ...contact },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { Put: { TableName: T(), Item: { ...contactKeys.consent(tenantId, id, consent.id), type: 'consent', ...consent } } },
    { ConditionCheck: { TableName: T(), Key: contactKeys.attestation(tenantId, attestation.id), ConditionExpression: 'attribute_exists(pk)' } },
  ];
  if ('add' in suppression) items.push(...suppressionAddItems(tenantId, suppression.add, 'written'));
  else items.push(suppressionStateCheck(tenantId, input.phone_e164, suppression.suppressed));
  if (input.owner_user_id) items.push(activeUserCheck(tenantId, input.owner_user_id));
  if (opts.listId) items.push(listMemberPut(tenantId, opts.listId, id, opts.now));
  return { contact, consent, items };
}

/** The owner must be an active user of the tenant at the moment of the write. */
const activeUserCheck = (tenantId: string, userId: string): TransactItem => ({
  ConditionCheck: {
    TableName: T(),
    Key: keys.user(tenantId, userId),
    ConditionExpression: 'attribute_exists(pk) AND #status = :active',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':active': 'active' },
  },
});

const listMemberPut = (tenantId: string, listId: string, contactId: string, now: string): TransactItem => ({
  Put: {
    TableName: T(),
    Item: { ...contactKeys.listMember(tenantId, listId, contactId), type: 'list_member', list_id: listId, contact_id: contactId, added_at: now },
  },
});

/**
 * Run a contact-creating transaction. Maps cancellation reasons to domain errors: the
 * phone guard → DuplicatePhone (naming the existing contact), the owner check → UnknownOwner,
 * the number's suppression item → SuppressionChanged.
 */
export async function writeNewContact(items: TransactItem[], extra: TransactItem[] = []): Promise<void> {
  try {
    await db().send(new TransactWriteCommand({ TransactItems: [...items, ...extra] }));
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
    const reasons = err.CancellationReasons ?? [];
    const guard = reasons[0];
    if (guard?.Code === 'ConditionalCheckFailed' && guard.Item) {
      throw new DuplicatePhone(unmarshall(guard.Item).contact_id as string);
    }
    const ownerIndex = items.findIndex((i) => i.ConditionCheck?.Key?.sk?.toString().startsWith('USER#'));
    if (ownerIndex >= 0 && reasons[ownerIndex]?.Code === 'ConditionalCheckFailed') throw new UnknownOwner();
    if (items.some((item, i) => touchesActiveSuppression(item) && reasons[i]?.Code === 'ConditionalCheckFailed')) throw new SuppressionChanged();
    throw err;
  }
}

export async function getContactRecord(tenantId: string, contactId: string): Promise<ContactRecord | undefined> {
  if (!isId(contactId)) return undefined; // a malformed id names nothing, like a missing one
  const out = await db().send(new GetCommand({ TableName: T(), Key: contactKeys.contact(tenantId, contactId) }));
  return out.Item as ContactRecord | undefined;
}

export function listContacts(
  tenantId: string,
  opts: { limit: number; cursor?: string; filters: FilterCondition[] },
  now: Date,
): Promise<Page<z.infer<typeof contactResource>>> {
  return queryPage({
    tenantId,
    scope: 'contacts',
    indexPartition: contactKeys.contactsIndexPartition(tenantId),
    skPrefix: collections.contacts,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: (item) => presentContact(item as unknown as ContactRecord, now),
  });
}

export function listConsents(tenantId: string, contactId: string, opts: { limit: number; cursor?: string }, now: Date) {
  return queryPage({
    tenantId,
    scope: `consents:${contactId}`,
    partition: contactPartition(tenantId, contactId),
    skPrefix: contactKeys.consentsPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: (item) => presentConsent(item as unknown as ConsentRecord, now),
  });
}

export function presentContact(c: ContactRecord, now: Date): z.infer<typeof contactResource> {
  return {
    id: c.id,
    phone_e164: c.phone_e164,
    first_name: c.first_name ?? null,
    last_name: c.last_name ?? null,
    company: c.company ?? null,
    title: c.title ?? null,
    email: c.email ?? null,
    timezone: c.timezone ?? null,
    best_consent_class: bestConsentClass(
      c.consent_grants.map((g) => ({ basis: g.basis, expires_at: g.expires_at })),
      now,
    ),
    do_not_call: c.do_not_call ?? false,
    lead_status: c.lead_status ?? null,
    owner_user_id: c.owner_user_id ?? null,
    tags: c.tags ?? [],
    jurisdictions: c.jurisdictions ?? [],
    attributes: c.attributes ?? {},
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

function presentConsent(c: ConsentRecord, now: Date): z.infer<typeof consentRecordResource> {
  return {
    id: c.id,
    contact_id: c.contact_id,
    consent_basis: c.consent_basis,
    captured_at: c.captured_at,
    scope: c.scope,
    evidence: c.evidence,
    disclosure_text_shown: c.disclosure_text_shown ?? null,
    expires_at: c.expires_at ?? null,
    valid: isConsentValid({ basis: c.consent_basis, expires_at: c.expires_at ?? null }, now),
    attestation: c.attestation,
    created_at: c.created_at,
  };
}

/**
 * Update an existing contact's given fields and attach a further consent record, in one
 * transaction (used by imports with on_duplicate=update). `current` is the contact as read:
 * the update is conditional on its updated_at (the caller re-reads and retries when the
 * contact changed in between), and the new grant joins its grants compacted (compactGrants), so the
 * item does not grow with every consent. `addSuppression` (an import row's do_not_call = true
 * for a number not yet suppressed) adds that entry in the same transaction and sets do_not_call.
 */
export function updateContactItems(
  tenantId: string,
  contactId: string,
  fields: Fields,
  consent: ConsentRecord | undefined,
  opts: {
    now: string;
    listId?: string;
    current: Pick<ContactRecord, 'updated_at' | 'consent_grants' | 'consent_facts' | 'history_keyed'>;
    addSuppression?: Suppression;
  },
): TransactItem[] {
  const names: Record<string, string> = { '#updated_at': 'updated_at' };
  const values: Record<string, unknown> = { ':now': opts.now, ':previous_updated_at': opts.current.updated_at };
  const sets = ['#updated_at = :now'];
  const removes: string[] = [];
  Object.entries(fields).forEach(([k, v], i) => {
    if (v === undefined) return;
    names[`#u${i}`] = k;
    values[`:u${i}`] = v;
    sets.push(`#u${i} = :u${i}`);
  });
  if (opts.addSuppression) {
    names['#dnc'] = 'do_not_call';
    values[':dnc'] = true;
    sets.push('#dnc = :dnc');
  }
  if (consent) {
    names['#grants'] = 'consent_grants';
    values[':grants'] = compactGrants([...(opts.current.consent_grants ?? []), grantOf(consent)]);
    sets.push('#grants = :grants');
    // Appended, not rewritten: a concurrent update's fact is never lost. Past the bound, judgements query the consents.
    // A consent valid only when a kept one with its basis and scope is valid changes no judgement: not kept twice.
    const facts = opts.current.consent_facts ?? [];
    if (opts.current.history_keyed === true && addsToConsents(facts, factsOf(consent))) {
      names['#facts'] = 'consent_facts';
      if (facts.length < MAX_KEYED_CONSENTS) {
        values[':fact'] = [factsOf(consent)];
        sets.push('#facts = list_append(#facts, :fact)');
      } else {
        names['#keyed'] = 'history_keyed';
        removes.push('#keyed', '#facts');
      }
    }
  }
  const items: TransactItem[] = [
    {
      Update: {
        TableName: T(),
        Key: contactKeys.contact(tenantId, contactId),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: 'attribute_exists(pk) AND #updated_at = :previous_updated_at',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  ];
  if (consent) items.push({ Put: { TableName: T(), Item: { ...contactKeys.consent(tenantId, contactId, consent.id), type: 'consent', ...consent } } });
  if (opts.addSuppression) items.push(...suppressionAddItems(tenantId, opts.addSuppression, 'written'));
  if (fields.owner_user_id) items.push(activeUserCheck(tenantId, fields.owner_user_id));
  if (opts.listId) items.push(listMemberPut(tenantId, opts.listId, contactId, opts.now));
  return items;
}
