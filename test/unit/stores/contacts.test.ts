/** Contacts (shared/repositories/contacts.ts): the creating transaction and how its refusals read, the history read (contact-attempts.ts), updates. */
import { BatchGetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { contactKeys, contactPartition, keys, suppressionKeys } from '../../../shared/db/keys.js';
import { readContactHistory } from '../../../shared/repositories/contact-attempts.js';
import {
  DuplicatePhone,
  getContactRecord,
  listConsents,
  listContacts,
  MAX_KEYED_CONSENTS,
  newContactItems,
  SuppressionChanged,
  UnknownOwner,
  updateContactItems,
  writeNewContact,
} from '../../../shared/repositories/contacts.js';
import { newSuppression } from '../../../shared/repositories/suppressions.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';
import { activeSuppressionItem } from '../../support/store-items.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const PHONE = '+12125550199';
const NOW = '2026-11-18T15:00:00.000Z';
const attestation = {
  id: 'ata_01JAAAAAAAAAAAAAAAAAAAAAAA',
  source: 'api' as const,
  import_id: null,
  signer_name: null,
  signer_title: null,
  affirmation: 'a',
  created_at: 'c',
};
const consent = { consent_basis: 'pewc', captured_at: '2026-11-01T12:00:00Z', scope: { purposes: ['solar'] }, evidence: { method: 'web_form' } } as never;
const create = (opts: Partial<Parameters<typeof newContactItems>[4]> = {}, fields: Record<string, unknown> = {}) =>
  newContactItems(T, { phone_e164: PHONE, first_name: 'Ada', ...fields } as never, consent, attestation, {
    now: NOW,
    suppression: { suppressed: false },
    ...opts,
  });

beforeEach(() => {
  table.reset();
  table.put({ ...contactKeys.attestation(T, attestation.id), type: 'attestation' });
});

describe('creating a contact', () => {
  it('writes the phone guard, the contact (with its index keys), the consent, and checks the attestation and the suppression state', async () => {
    const { contact, consent: c, items } = create();
    expect(contact).toMatchObject({ phone_e164: PHONE, do_not_call: false, consent_grants: [{ consent_id: c.id, basis: 'pewc', expires_at: null }] });
    await writeNewContact(items);
    expect(table.get(contactKeys.phone(T, PHONE))).toMatchObject({ contact_id: contact.id });
    expect(table.get(contactKeys.contact(T, contact.id))).toMatchObject({ ...contactKeys.contactIndex(T, contact.id), type: 'contact' });
    expect(await getContactRecord(T, contact.id)).toMatchObject({ id: contact.id, first_name: 'Ada' });
    expect(items[4]!.ConditionCheck).toMatchObject({ Key: suppressionKeys.active(T, PHONE), ConditionExpression: 'attribute_not_exists(pk)' });
  });

  it('a number already held is DuplicatePhone naming the existing contact', async () => {
    const first = create();
    await writeNewContact(first.items);
    const err = await writeNewContact(create().items).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DuplicatePhone);
    expect((err as DuplicatePhone).contactId).toBe(first.contact.id);
  });

  it('a number suppressed since the read is SuppressionChanged; created with do_not_call when read suppressed', async () => {
    table.put(activeSuppressionItem(T, PHONE));
    await expect(writeNewContact(create().items)).rejects.toBeInstanceOf(SuppressionChanged);
    const { contact, items } = create({ suppression: { suppressed: true } });
    expect(contact.do_not_call).toBe(true);
    await writeNewContact(items);
  });

  it('a suppression added in the same transaction sets do_not_call, without the state check', () => {
    const add = newSuppression({ phone_e164: PHONE, reason: 'opt_out', source: 'import', source_id: 'imp_1' }, NOW);
    const { contact, items } = create({ suppression: { add } });
    expect(contact.do_not_call).toBe(true);
    expect(items.filter((i) => i.ConditionCheck?.Key?.sk === 'ACTIVE')).toEqual([]);
    expect(items.some((i) => i.Put?.Item?.sk === 'ACTIVE')).toBe(true);
  });

  it('an owner that is not an active user is UnknownOwner; a list membership joins the write', async () => {
    const { items } = create({ listId: 'lst_01JAAAAAAAAAAAAAAAAAAAAAAA' }, { owner_user_id: 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA' });
    const owner = items.findIndex((i) => i.ConditionCheck?.Key?.sk === keys.user(T, 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA').sk);
    expect(items[owner]!.ConditionCheck!.ConditionExpression).toBe('attribute_exists(pk) AND #status = :active');
    expect(items.at(-1)!.Put!.Item).toMatchObject({ type: 'list_member', list_id: 'lst_01JAAAAAAAAAAAAAAAAAAAAAAA' });
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(items.map((_, i) => (i === owner ? 'ConditionalCheckFailed' : 'None'))));
    await expect(writeNewContact(items)).rejects.toBeInstanceOf(UnknownOwner);
  });
});

describe('reading contacts', () => {
  it('the history: the contact with its consents and its day items of placements, by key in ONE consistent BatchGetItem', async () => {
    const { contact, items } = create();
    await writeNewContact(items);
    // The day items as the dial's attemptPlacedItems appends to them: today's and yesterday's are read, the window cuts both ways.
    table.put({
      ...contactKeys.placements(T, contact.id, '2026-11-18'),
      type: 'contact_placements',
      placements: [
        { attempt_id: 'att_01JAAAAAAAAAAAAAAAAAAAAAA1', placed_at: '2026-11-18T10:00:00.000Z', subject: 'solar' },
        { attempt_id: 'att_01JAAAAAAAAAAAAAAAAAAAAAA2', placed_at: '2026-11-18T15:00:01.000Z', subject: 'solar' },
      ],
    });
    table.put({
      ...contactKeys.placements(T, contact.id, '2026-11-17'),
      type: 'contact_placements',
      placements: [
        { attempt_id: 'att_01JAAAAAAAAAAAAAAAAAAAAAA3', placed_at: '2026-11-17T14:59:59.000Z', subject: 'solar' },
        { attempt_id: 'att_01JAAAAAAAAAAAAAAAAAAAAAA4', placed_at: '2026-11-17T16:00:00.000Z', subject: null },
      ],
    });
    table.put({
      ...contactKeys.placements(T, contact.id, '2026-11-16'),
      type: 'contact_placements',
      placements: [{ attempt_id: 'att_01JAAAAAAAAAAAAAAAAAAAAAA5', placed_at: '2026-11-16T20:00:00.000Z', subject: 'solar' }],
    });
    table.forgetSent();
    const history = await readContactHistory(T, contact.id, new Date(NOW));
    expect(history!.contact).toEqual({ id: contact.id, phone_e164: PHONE });
    expect(history!.consents).toEqual([{ basis: 'pewc', scope: { purposes: ['solar'] }, captured_at: '2026-11-01T12:00:00.000Z', expires_at: null }]);
    expect(history!.attempts).toEqual([
      { placed_at: '2026-11-18T10:00:00.000Z', subject: 'solar' },
      { placed_at: '2026-11-17T16:00:00.000Z', subject: '' },
    ]);
    expect(inputsOf(QueryCommand)).toEqual([]);
    const [batch] = inputsOf(BatchGetCommand);
    const read = Object.values(batch!.RequestItems)[0] as { Keys: unknown[]; ConsistentRead: boolean };
    expect(read.ConsistentRead).toBe(true);
    expect(read.Keys).toEqual([
      contactKeys.contact(T, contact.id),
      contactKeys.placements(T, contact.id, '2026-11-18'),
      contactKeys.placements(T, contact.id, '2026-11-17'),
    ]);
    expect(await readContactHistory(T, 'con_01JZZZZZZZZZZZZZZZZZZZZZZZ', new Date(NOW))).toBeUndefined();
    expect(await readContactHistory(T, 'bad', new Date(NOW))).toBeUndefined();
  });

  it('a contact stored before it carried its consents is read with ONE consistent Query over its partition', async () => {
    const { contact, items } = create();
    await writeNewContact(items);
    const stored = table.get(contactKeys.contact(T, contact.id))!;
    const { history_keyed: _keyed, consent_facts: _facts, ...legacy } = stored;
    table.put(legacy);
    table.put({
      ...contactKeys.attempt(T, contact.id, 'att_01JAAAAAAAAAAAAAAAAAAAAAAA'),
      type: 'contact_attempt',
      placed_at: '2026-11-18T10:00:00.000Z',
      subject: 'solar',
    });
    table.forgetSent();
    const history = await readContactHistory(T, contact.id, new Date(NOW));
    expect(history!.contact.id).toBe(contact.id);
    expect(history!.consents).toEqual([{ basis: 'pewc', scope: { purposes: ['solar'] }, captured_at: '2026-11-01T12:00:00.000Z', expires_at: null }]);
    expect(history!.attempts).toEqual([{ placed_at: '2026-11-18T10:00:00.000Z', subject: 'solar' }]);
    const [q] = inputsOf(QueryCommand);
    expect(q).toMatchObject({ ConsistentRead: true, KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to' });
    expect(q!.ExpressionAttributeValues[':pk']).toBe(contactPartition(T, contact.id));
    expect(q!.FilterExpression).toContain('#itemType IN (:contactType, :consentType) OR ');
  });

  it('lists contacts newest first through the index, and a contact’s consents', async () => {
    const a = create();
    await writeNewContact(a.items);
    const b = create({}, { phone_e164: '+12125550100' });
    await writeNewContact(b.items);
    const page = await listContacts(T, { limit: 1, filters: [] }, new Date(NOW));
    expect(page.data.map((c) => c.id)).toEqual([b.contact.id]);
    expect(page.data[0]).toMatchObject({ do_not_call: false, tags: [], attributes: {} });
    expect(page.data[0]).not.toHaveProperty('consent_grants');
    const consents = await listConsents(T, a.contact.id, { limit: 5 }, new Date(NOW));
    expect(consents.data).toEqual([expect.objectContaining({ id: a.consent.id, valid: true, attestation })]);
  });
});

describe('updating a contact', () => {
  it('sets only the given fields, conditioned on the updated_at read, with the new grant and consent', () => {
    const { consent: c } = create();
    const items = updateContactItems(T, 'con_01JAAAAAAAAAAAAAAAAAAAAAAA', { first_name: 'Eve', last_name: undefined } as never, c, {
      now: NOW,
      current: { updated_at: 'u0', consent_grants: [] },
    });
    const u = items[0]!.Update!;
    expect(u.ConditionExpression).toBe('attribute_exists(pk) AND #updated_at = :previous_updated_at');
    expect(u.ExpressionAttributeValues).toMatchObject({ ':previous_updated_at': 'u0', ':u0': 'Eve' });
    expect(u.UpdateExpression).toBe('SET #updated_at = :now, #u0 = :u0, #grants = :grants');
    expect(items[1]!.Put!.Item).toMatchObject({ type: 'consent', id: c.id });
  });

  it("a keyed contact's new consent joins its facts by append; past MAX_KEYED_CONSENTS its judgements query the consents instead", () => {
    const { consent: c, contact } = create();
    expect(contact).toMatchObject({
      history_keyed: true,
      consent_facts: [{ basis: 'pewc', scope: { purposes: ['solar'] }, captured_at: c.captured_at, expires_at: null }],
    });
    const update = (current: Parameters<typeof updateContactItems>[4]['current']) =>
      updateContactItems(T, 'con_01JAAAAAAAAAAAAAAAAAAAAAAA', {}, c, { now: NOW, current }).at(0)!.Update!;
    const appended = update({ updated_at: 'u0', consent_grants: [], history_keyed: true, consent_facts: [] });
    expect(appended.UpdateExpression).toBe('SET #updated_at = :now, #grants = :grants, #facts = list_append(#facts, :fact)');
    expect(appended.ExpressionAttributeValues![':fact']).toEqual([
      { basis: 'pewc', scope: { purposes: ['solar'] }, captured_at: c.captured_at, expires_at: null },
    ]);
    // The same consent again (or one valid only when it is) changes no judgement: not kept twice.
    expect(update({ updated_at: 'u0', consent_grants: [], history_keyed: true, consent_facts: contact.consent_facts }).UpdateExpression).toBe(
      'SET #updated_at = :now, #grants = :grants',
    );
    const others = Array.from({ length: MAX_KEYED_CONSENTS }, (_, i) => ({ ...contact.consent_facts![0]!, scope: { purposes: [`p${i}`] } }));
    const full = update({ updated_at: 'u0', consent_grants: [], history_keyed: true, consent_facts: others });
    expect(full.UpdateExpression).toBe('SET #updated_at = :now, #grants = :grants REMOVE #keyed, #facts');
    // A contact stored before the facts existed is left as it was (its judgements query).
    expect(update({ updated_at: 'u0', consent_grants: [] }).UpdateExpression).toBe('SET #updated_at = :now, #grants = :grants');
  });
});
