/**
 * An import refused after its first write leaves nothing behind: the evidence object is
 * deleted again, and a list created by list_name exists only together with the job (one
 * transaction). DynamoDB Local and the emulator's S3; the failure is injected through the
 * run's beforeJobStart test seam.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { contactKeys, tenantPk } from '../../shared/db/keys.js';
import { createList, findListByName, listMemberIds } from '../../shared/repositories/contact-lists.js';
import { getImportJob } from '../../shared/repositories/import-jobs.js';
import { csvText, importCsv, newImportTenant, testPhone } from '../support/imports.js';
import { useTestEnvironment } from '../support/index.js';

const env = useTestEnvironment({ queues: false });

const evidenceKeys = async (tenantId: string) =>
  ((await env.s3.send(new ListObjectsV2Command({ Bucket: env.importBucket, Prefix: `imports/${tenantId}/` }))).Contents ?? []).map((o) => o.Key);

/** Every item of the tenant's own partition whose sort key starts with one of the prefixes. */
async function tenantItems(tenantId: string, prefixes: string[]) {
  const out = await db().send(
    new QueryCommand({
      TableName: env.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': tenantPk(tenantId) },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).filter((i) => prefixes.some((p) => String(i.sk).startsWith(p)));
}

const content = csvText(['Phone'], [[testPhone(1)], [testPhone(2)]]);
const failing = { beforeJobStart: () => Promise.reject(new Error('simulated job write failure')) };

describe('a refused import leaves nothing behind', () => {
  it('list_name of a new list: no evidence object, no list, no name guard, no job, no attestation', async () => {
    const { tenantId } = await newImportTenant();
    await expect(importCsv(tenantId, { content, column_mapping: { Phone: 'phone_e164' }, list_name: 'Brand New' }, failing)).rejects.toThrow(
      'simulated job write failure',
    );
    expect(await evidenceKeys(tenantId)).toEqual([]);
    expect(await findListByName(tenantId, 'Brand New')).toBeUndefined();
    const guard = await db().send(new GetCommand({ TableName: env.tableName, Key: contactKeys.listName(tenantId, 'Brand New'), ConsistentRead: true }));
    expect(guard.Item).toBeUndefined();
    expect(await tenantItems(tenantId, ['LIST', 'IMPORT#', 'ATTESTATION#'])).toEqual([]);
  });

  it('an existing list (by name or id) is left as it was; the evidence object is deleted', async () => {
    const { tenantId } = await newImportTenant();
    const list = await createList(tenantId, 'Kept', new Date());
    await expect(importCsv(tenantId, { content, column_mapping: { Phone: 'phone_e164' }, list_name: 'KEPT' }, failing)).rejects.toThrow();
    await expect(importCsv(tenantId, { content, column_mapping: { Phone: 'phone_e164' }, target_list_id: list.id }, failing)).rejects.toThrow();
    expect(await evidenceKeys(tenantId)).toEqual([]);
    expect(await findListByName(tenantId, 'kept')).toEqual(list);
    expect(await tenantItems(tenantId, ['IMPORT#', 'ATTESTATION#'])).toEqual([]);
  });

  it('a job write that committed although it answered an error keeps its file and ends failed', async () => {
    const { tenantId } = await newImportTenant();
    let importId = '';
    const refused = importCsv(
      tenantId,
      { content, column_mapping: { Phone: 'phone_e164' }, list_name: 'Lost Answer' },
      {
        // The job item is already there when our write arrives (as if our first attempt committed and its answer was lost).
        beforeJobStart: async (id) => {
          importId = id;
          const now = new Date().toISOString();
          await db().send(
            new PutCommand({
              TableName: env.tableName,
              Item: {
                ...contactKeys.importJob(tenantId, id),
                type: 'import_job',
                id,
                tenant_id: tenantId,
                status: 'running',
                lease_expires_at: now,
                created_at: now,
                updated_at: now,
              },
            }),
          );
        },
      },
    );
    await expect(refused).rejects.toThrow();
    expect(await evidenceKeys(tenantId)).toEqual([`imports/${tenantId}/${importId}.csv`]);
    expect(await getImportJob(tenantId, importId)).toMatchObject({ status: 'failed', failure_reason: 'internal_error', rows_accepted: 0 });
    expect(await findListByName(tenantId, 'Lost Answer')).toBeUndefined();
  });

  it('a list of that name created meanwhile by another request is used, not duplicated', async () => {
    const { tenantId } = await newImportTenant();
    let winner: Awaited<ReturnType<typeof createList>> | undefined;
    const job = await importCsv(
      tenantId,
      { content, column_mapping: { Phone: 'phone_e164' }, list_name: 'Race' },
      {
        beforeJobStart: async () => {
          winner = await createList(tenantId, ' race ', new Date());
        },
      },
    );
    expect(job).toMatchObject({ status: 'completed', rows_accepted: 2, target_list_id: winner!.id });
    expect(await tenantItems(tenantId, ['LIST#'])).toHaveLength(1);
    expect(await listMemberIds(tenantId, winner!.id)).toHaveLength(2);
    expect(await evidenceKeys(tenantId)).toEqual([`imports/${tenantId}/${job.id}.csv`]);
  });

  it('a list created by a successful import is written with its job', async () => {
    const { tenantId } = await newImportTenant();
    const job = await importCsv(tenantId, { content, column_mapping: { Phone: 'phone_e164' }, list_name: 'Fresh' });
    const list = await findListByName(tenantId, 'fresh');
    expect(list).toMatchObject({ name: 'Fresh', id: job.target_list_id });
    expect(await listMemberIds(tenantId, list!.id)).toHaveLength(2);
  });
});
