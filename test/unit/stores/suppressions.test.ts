/** The suppression list (shared/repositories/suppressions.ts): ACTIVE exactly while suppressed, history kept, the holder kept in step. */
import { BatchGetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { contactKeys, suppressionKeys } from '../../../shared/db/keys.js';
import { isSuppressed } from '../../../shared/repositories/suppression-state.js';
import {
  AlreadySuppressed,
  addSuppression,
  getActiveSuppression,
  liftSuppression,
  listSuppressions,
  newSuppression,
  phoneHolder,
  suppressedAmong,
  suppressionLiftItems,
  suppressionStateCheck,
  touchesActiveSuppression,
} from '../../../shared/repositories/suppressions.js';
import { ddb, inputsOf, memoryTable, TABLE, transactionCancelled } from '../../support/document-client-mock.js';
import { activeSuppressionItem } from '../../support/store-items.js';

/** The instant the caller hands the store. */
const AT = new Date('2026-03-01T12:00:00.000Z');

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CON = 'con_01JAAAAAAAAAAAAAAAAAAAAAAA';
const PHONE = '+12125550199';
const input = { phone_e164: PHONE, reason: 'opt_out' as const, source: 'api' as const, source_id: null };
beforeEach(() => table.reset());

describe('adding a suppression', () => {
  it('with no contact holding the number: ACTIVE + history only if absent, and the phone guard checked absent', async () => {
    const entry = await addSuppression(T, input, AT);
    expect(entry).toMatchObject({ phone_e164: PHONE, status: 'active', reason: 'opt_out', note: null, lifted_at: null });
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items.map((i: Record<string, unknown>) => Object.keys(i)[0])).toEqual(['Put', 'Put', 'ConditionCheck']);
    expect(items[0].Put).toMatchObject({
      Item: { ...suppressionKeys.active(T, PHONE), suppression_id: entry.id },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(items[1].Put.Item).toMatchObject({ ...suppressionKeys.entry(T, PHONE, entry.id), ...suppressionKeys.entryIndex(T, entry.id), type: 'suppression' });
    expect(items[2].ConditionCheck).toMatchObject({ Key: contactKeys.phone(T, PHONE), ConditionExpression: 'attribute_not_exists(pk)' });
    expect(await getActiveSuppression(T, PHONE)).toEqual(entry);
    expect(await isSuppressed(T, PHONE)).toBe(true);
  });

  it('an already suppressed number is AlreadySuppressed, naming the entry, with nothing written', async () => {
    table.put(activeSuppressionItem(T, PHONE));
    const err = await addSuppression(T, input, AT).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlreadySuppressed);
    expect((err as AlreadySuppressed).suppressionId).toBe('sup_01JDDDDDDDDDDDDDDDDDDDDDDD');
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
  });

  it("sets the holding contact's do_not_call in the same transaction, with the caller's extra items", async () => {
    table.put({ ...contactKeys.phone(T, PHONE), contact_id: CON });
    ddb.on(TransactWriteCommand).resolves({});
    await addSuppression(T, input, AT, () => [{ Put: { TableName: TABLE, Item: { pk: 'IDEM', sk: 'X' } } }]);
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items[2].Update).toMatchObject({
      Key: contactKeys.contact(T, CON),
      ExpressionAttributeValues: { ':dnc': true },
      ConditionExpression: 'attribute_exists(pk)',
    });
    expect(items[3].Put.Item).toEqual({ pk: 'IDEM', sk: 'X' });
  });

  it('reads again and retries when a writer of the number raced it', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['ConditionalCheckFailed', 'None', 'None']))
      .resolves({});
    await addSuppression(T, input, AT);
    expect(inputsOf(TransactWriteCommand)).toHaveLength(2);
    // A refusal of the caller's own extra item is not a race: it surfaces at once.
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'None', 'None', 'ConditionalCheckFailed']));
    await expect(
      addSuppression(T, input, AT, () => [{ ConditionCheck: { TableName: TABLE, Key: { pk: 'a', sk: 'b' }, ConditionExpression: 'x' } }]),
    ).rejects.toThrow();
    expect(inputsOf(TransactWriteCommand)).toHaveLength(3);
  });
});

describe('lifting a suppression', () => {
  it('deletes ACTIVE only while it names the entry, marks the entry lifted, clears the holder', () => {
    const active = newSuppression(input, 'c');
    const [del, mark, holder] = suppressionLiftItems(T, active, { note: 'n', by: 'usr_1', now: 'L' }, { contactId: CON });
    expect(del!.Delete).toMatchObject({
      Key: suppressionKeys.active(T, PHONE),
      ConditionExpression: 'suppression_id = :id',
      ExpressionAttributeValues: { ':id': active.id },
    });
    expect(mark!.Update).toMatchObject({ Key: suppressionKeys.entry(T, PHONE, active.id), ConditionExpression: '#status = :active' });
    expect(holder!.Update!.ExpressionAttributeValues).toMatchObject({ ':dnc': false, ':now': 'L' });
  });

  it('answers the lifted entry, or undefined (nothing written) for a number not suppressed', async () => {
    expect(await liftSuppression(T, PHONE, { note: 'n', by: 'u' }, AT)).toBeUndefined();
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
    table.put(activeSuppressionItem(T, PHONE));
    ddb.on(TransactWriteCommand).resolves({});
    expect(await liftSuppression(T, PHONE, { note: 'n', by: 'u' }, AT)).toMatchObject({ status: 'lifted', lift_note: 'n', lifted_by: 'u' });
  });
});

describe('reads', () => {
  it('which numbers are suppressed, 100 keys a batch, consistent, each number once', async () => {
    const phones = Array.from({ length: 150 }, (_, i) => `+1212555${String(i).padStart(4, '0')}`);
    table.put(activeSuppressionItem(T, phones[3]!));
    table.put(activeSuppressionItem(T, phones[120]!));
    expect(await suppressedAmong(T, [...phones, phones[3]!])).toEqual(new Set([phones[3], phones[120]]));
    const batches = inputsOf(BatchGetCommand).map((b) => b.RequestItems[TABLE]);
    expect(batches.map((b) => b.Keys.length)).toEqual([100, 50]);
    expect(batches.every((b) => b.ConsistentRead)).toBe(true);
  });

  it('the holder from the phone guard; the state check and the ACTIVE-item test', async () => {
    expect(await phoneHolder(T, PHONE)).toBeNull();
    table.put({ ...contactKeys.phone(T, PHONE), contact_id: CON });
    expect(await phoneHolder(T, PHONE)).toEqual({ contactId: CON });
    const check = suppressionStateCheck(T, PHONE, true);
    expect(check.ConditionCheck!.ConditionExpression).toBe('attribute_exists(pk)');
    expect(suppressionStateCheck(T, PHONE, false).ConditionCheck!.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(touchesActiveSuppression(check)).toBe(true);
    expect(touchesActiveSuppression({ ConditionCheck: { TableName: TABLE, Key: contactKeys.phone(T, PHONE), ConditionExpression: 'x' } })).toBe(false);
  });

  it('lists every entry newest first through the index', async () => {
    const a = await addSuppression(T, input, AT);
    const b = await addSuppression(T, { ...input, phone_e164: '+12125550100' }, AT);
    const page = await listSuppressions(T, { limit: 1, filters: [] });
    expect(page.data.map((s) => s.id)).toEqual([b.id]);
    expect((await listSuppressions(T, { limit: 5, filters: [], cursor: page.next_cursor! })).data.map((s) => s.id)).toEqual([a.id]);
  });
});
