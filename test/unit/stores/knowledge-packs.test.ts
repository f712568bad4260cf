/** Knowledge packs (shared/repositories/knowledge-packs.ts): drafts counted under the limits, blobs in chunks, versions moved from what was read. */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { knowledgePackKeys } from '../../../shared/db/keys.js';
import { lostRace, transactWrite } from '../../../shared/db/transact-write.js';
import { KNOWLEDGE_LIMITS } from '../../../shared/policy/knowledge/limits.js';
import {
  addDocument,
  createPack,
  DraftLimitReached,
  deleteDocument,
  draftDocuments,
  getPack,
  getPackVersion,
  packVersionItems,
  putBlob,
  readBlob,
} from '../../../shared/repositories/knowledge-packs.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-11-18T15:00:00.000Z');
beforeEach(() => table.reset());

describe('knowledge packs store', () => {
  it('creates a pack only if new and reads it back (eventually consistent unless asked)', async () => {
    const pack = await createPack(T, { name: 'FAQ' }, at);
    expect(pack).toMatchObject({
      name: 'FAQ',
      description: null,
      document_count: 0,
      draft_bytes: 0,
      latest_version: null,
      revision: 1,
      created_at: at.toISOString(),
    });
    expect(await getPack(T, pack.id)).toEqual(pack);
    await getPack(T, pack.id, true);
    expect(table.sent.filter((s) => s.command === 'GetItem').map((s) => s.input.ConsistentRead)).toEqual([false, true]);
    expect(await getPack(T, 'bad')).toBeUndefined();
  });

  it('adds a document counting it on the pack under both limits, in one transaction', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const doc = await addDocument(T, 'kp_01JAAAAAAAAAAAAAAAAAAAAAAA', { title: 't', content: 'héllo' }, at);
    expect(doc).toMatchObject({ pack_id: 'kp_01JAAAAAAAAAAAAAAAAAAAAAAA', bytes: 6, source_ref: null });
    const [count, put] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(count.Update.ConditionExpression).toBe('attribute_exists(pk) AND document_count < :maxDocs AND draft_bytes <= :room');
    expect(count.Update.ExpressionAttributeValues).toMatchObject({
      ':b': 6,
      ':room': KNOWLEDGE_LIMITS.packBytes - 6,
      ':maxDocs': KNOWLEDGE_LIMITS.documentsPerPack,
    });
    expect(put.Put).toMatchObject({
      Item: knowledgePackKeys.document(T, 'kp_01JAAAAAAAAAAAAAAAAAAAAAAA', doc!.id),
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  });

  it('a refused count names the limit reached, or is undefined for a missing pack', async () => {
    const pack = await createPack(T, { name: 'FAQ' }, at);
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    const err = await addDocument(T, pack.id, { title: 't', content: 'x' }, at).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DraftLimitReached);
    expect((err as DraftLimitReached).limit).toBe('bytes');
    table.put({ ...knowledgePackKeys.pack(T, pack.id), ...pack, document_count: KNOWLEDGE_LIMITS.documentsPerPack });
    await expect(addDocument(T, pack.id, { title: 't', content: 'x' }, at)).rejects.toMatchObject({ limit: 'documents' });
    expect(await addDocument(T, 'kp_01JZZZZZZZZZZZZZZZZZZZZZZZ', { title: 't', content: 'x' }, at)).toBeUndefined();
  });

  it('deletes a draft document with its count; false for one that is not there', async () => {
    const P = 'kp_01JAAAAAAAAAAAAAAAAAAAAAAA';
    const D = 'kpd_01JAAAAAAAAAAAAAAAAAAAAAAA';
    expect(await deleteDocument(T, P, D, at)).toBe(false);
    table.put({ ...knowledgePackKeys.document(T, P, D), id: D, bytes: 9 });
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['None', 'TransactionConflict']))
      .resolves({});
    expect(await deleteDocument(T, P, D, at)).toBe(true);
    const sent = inputsOf(TransactWriteCommand);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.TransactItems[1].Update.ExpressionAttributeValues).toMatchObject({ ':b': 9 });
    expect(await deleteDocument(T, P, 'bad', at)).toBe(false);
  });

  it('lists the draft documents by id, and writes and reads a blob across chunks in order', async () => {
    const P = 'kp_01JAAAAAAAAAAAAAAAAAAAAAAA';
    table.put({ ...knowledgePackKeys.document(T, P, 'kpd_01JAAAAAAAAAAAAAAAAAAAAAA2'), id: 'kpd_2', title: 'b' });
    table.put({ ...knowledgePackKeys.document(T, P, 'kpd_01JAAAAAAAAAAAAAAAAAAAAAA1'), id: 'kpd_1', title: 'a' });
    expect((await draftDocuments(T, P)).map((d) => d.title)).toEqual(['a', 'b']);
    const blob = Uint8Array.from({ length: 600 * 1024 }, (_, i) => i % 251);
    expect(await putBlob(T, P, 'hash1', blob)).toBe(3);
    expect(Buffer.compare((await readBlob(T, P, 'hash1'))!, Buffer.from(blob))).toBe(0);
    expect(await putBlob(T, P, 'empty', new Uint8Array())).toBe(1);
    expect(await readBlob(T, P, 'nothing')).toBeUndefined();
  });

  it('puts version N+1 only from the pack as read; a pack that moved on is a lost race', async () => {
    const pack = await createPack(T, { name: 'FAQ' }, at);
    ddb
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    const version = { version: 1, blob_chunks: 1 } as never;
    await transactWrite(packVersionItems(T, pack.id, pack, version, at));
    const [move, put] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(move.Update.ExpressionAttributeValues).toMatchObject({ ':n': 1, ':rev': 1, ':prev': -1 });
    expect(put.Put).toMatchObject({ Item: knowledgePackKeys.version(T, pack.id, 1), ConditionExpression: 'attribute_not_exists(pk)' });
    expect(lostRace(await transactWrite(packVersionItems(T, pack.id, pack, version, at)).catch((err: unknown) => err))).toBe(true);
    table.put({ ...knowledgePackKeys.version(T, pack.id, 1), type: 'knowledge_pack_version', tenant_id: T, version: 1, blob_chunks: 1 });
    expect(await getPackVersion(T, pack.id, 1)).toEqual({ version: 1, blob_chunks: 1 });
    expect(await getPackVersion(T, pack.id, 0)).toBeUndefined();
  });
});
