/** Import jobs (shared/repositories/import-jobs.ts): started with its attestation (and list), then moved only under a live lease. */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { contactKeys } from '../../../shared/db/keys.js';
import { ListNameTaken } from '../../../shared/repositories/contact-lists.js';
import {
  completeImportJob,
  failImportJob,
  getImportJob,
  heartbeatImportJob,
  type ImportJobRecord,
  LeaseLost,
  startImportJob,
} from '../../../shared/repositories/import-jobs.js';
import { conditionFailed, ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const JOB = 'imp_01JAAAAAAAAAAAAAAAAAAAAAAA';
const now = new Date('2026-11-18T15:00:00.000Z');
const progress = { rows_accepted: 3, rows_rejected: 1, rows_skipped: 0, errors: [], errors_truncated: false };
const job = {
  id: JOB,
  tenant_id: T,
  status: 'running',
  consent_attestation: { consent_basis: 'pewc', signer_ip: '203.0.113.9', signed_at: 's' },
  attestation_id: 'ata_01JAAAAAAAAAAAAAAAAAAAAAAA',
  ...progress,
} as unknown as ImportJobRecord;
const attestation = {
  id: 'ata_01JAAAAAAAAAAAAAAAAAAAAAAA',
  source: 'import' as const,
  import_id: JOB,
  signer_name: 'Ann',
  signer_title: null,
  affirmation: 'a',
  created_at: 'c',
};
const list = { id: 'lst_01JAAAAAAAAAAAAAAAAAAAAAAA', name: 'Leads', created_at: 'c', updated_at: 'c' } as never;
beforeEach(() => table.reset());

describe('import jobs store', () => {
  it('starts the job with its attestation (stamped with who signed, from where) and its new list, all only if new', async () => {
    await startImportJob(job, attestation, list);
    expect(await getImportJob(T, JOB)).toMatchObject({ id: JOB, status: 'running' });
    expect(table.get(contactKeys.attestation(T, attestation.id))).toMatchObject({
      type: 'attestation',
      import_id: JOB,
      signer_ip: '203.0.113.9',
      consent_basis: 'pewc',
    });
    expect(table.get(contactKeys.listName(T, 'Leads'))).toMatchObject({ list_id: 'lst_01JAAAAAAAAAAAAAAAAAAAAAAA' });
  });

  it('a list name taken meanwhile is ListNameTaken, and nothing of the job is written', async () => {
    table.put({ ...contactKeys.listName(T, 'Leads'), list_id: 'lst_other' });
    await expect(startImportJob(job, attestation, list)).rejects.toBeInstanceOf(ListNameTaken);
    expect(await getImportJob(T, JOB)).toBeUndefined();
    // Without a new list, a refusal is the transaction's own error.
    await startImportJob(job, attestation);
    await expect(startImportJob(job, attestation)).rejects.toMatchObject({ name: 'TransactionCanceledException' });
  });

  it('reads only an import job by a well-formed id', async () => {
    table.put({ ...contactKeys.importJob(T, JOB), type: 'something_else' });
    expect(await getImportJob(T, JOB)).toBeUndefined();
    expect(await getImportJob(T, 'bad')).toBeUndefined();
  });

  it('a heartbeat saves progress and extends the lease only while it is live; a lost lease is LeaseLost', async () => {
    ddb.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    await heartbeatImportJob(T, JOB, progress, now, new Date('2026-11-18T15:01:00.000Z'));
    const u = inputsOf(UpdateCommand)[0]!;
    expect(u.ConditionExpression).toBe('#status = :running AND lease_expires_at > :now');
    expect(u.ExpressionAttributeValues).toMatchObject({ ':acc': 3, ':rej': 1, ':now': now.toISOString(), ':lease': '2026-11-18T15:01:00.000Z' });
    await expect(heartbeatImportJob(T, JOB, progress, now, now)).rejects.toBeInstanceOf(LeaseLost);
  });

  it('completes only under a live lease (dropping it); fails only a running job, undefined otherwise', async () => {
    ddb
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { id: JOB, status: 'completed' } })
      .rejectsOnce(conditionFailed());
    expect(await completeImportJob(T, JOB, progress, now)).toEqual({ id: JOB, status: 'completed' });
    expect(inputsOf(UpdateCommand)[0]!.UpdateExpression).toContain('#status = :completed REMOVE lease_expires_at');
    await expect(completeImportJob(T, JOB, progress, now)).rejects.toBeInstanceOf(LeaseLost);
    ddb.on(UpdateCommand).resolves({ Attributes: { id: JOB, status: 'failed' } });
    expect(await failImportJob(T, JOB, progress, 'time_limit', now)).toEqual({ id: JOB, status: 'failed' });
    expect(inputsOf(UpdateCommand)[2]).toMatchObject({ ConditionExpression: '#status = :running', ExpressionAttributeValues: { ':reason': 'time_limit' } });
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await failImportJob(T, JOB, progress, 'interrupted', now)).toBeUndefined();
  });
});
