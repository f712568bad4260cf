/** Reps (shared/repositories/reps.ts): the transfer number never leaves the store in what it presents. */
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentKeys } from '../../../shared/db/keys.js';
import { createRep, getRep, listReps, repSnapshot, setRepStatus } from '../../../shared/repositories/reps.js';
import { conditionFailed, ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

/** The instant the caller hands the store. */
const AT = new Date('2026-03-01T12:00:00.000Z');

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
beforeEach(() => table.reset());

describe('reps store', () => {
  it('creates a rep only if new, disabled when asked, and reads it back consistently', async () => {
    const rep = await createRep({ tenantId: T, name: 'Ann', transferNumber: '+14155550177', disabled: true }, AT);
    expect(rep).toMatchObject({ tenant_id: T, name: 'Ann', status: 'disabled', transfer_number: '+14155550177' });
    expect(inputsOf(PutCommand)[0]).toMatchObject({ ConditionExpression: 'attribute_not_exists(pk)', Item: { ...agentKeys.rep(T, rep.id), type: 'rep' } });
    expect(await getRep(T, rep.id)).toMatchObject({ id: rep.id, name: 'Ann' });
    expect(table.sent.find((s) => s.command === 'GetItem')!.input.ConsistentRead).toBe(true);
    expect(await getRep(T, 'bad')).toBeUndefined();
  });

  it('what leaves the store says whether a transfer is possible, never the number', async () => {
    const rep = await createRep({ tenantId: T, name: 'Ann', transferNumber: '+14155550177', disabled: false }, AT);
    expect(repSnapshot(rep)).toEqual({ rep_id: rep.id, name: 'Ann', transfer_enabled: true });
    await createRep({ tenantId: T, name: 'Bob', transferNumber: null, disabled: false }, AT);
    const page = await listReps(T, { limit: 10, filters: [] });
    expect(page.data.map((r) => [r.name, r.transfer_enabled])).toEqual([
      ['Bob', false],
      ['Ann', true],
    ]);
    expect(JSON.stringify(page)).not.toContain('+14155550177');
    expect(inputsOf(QueryCommand)[0]!.ScanIndexForward).toBe(false);
  });

  it('sets the status of an existing rep only; a missing or malformed one is undefined', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { id: 'rep_1', status: 'disabled' } });
    expect(await setRepStatus(T, 'rep_01JAAAAAAAAAAAAAAAAAAAAAAA', 'disabled', AT)).toEqual({ id: 'rep_1', status: 'disabled' });
    expect(inputsOf(UpdateCommand)[0]).toMatchObject({ Key: agentKeys.rep(T, 'rep_01JAAAAAAAAAAAAAAAAAAAAAAA'), ConditionExpression: 'attribute_exists(pk)' });
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await setRepStatus(T, 'rep_01JAAAAAAAAAAAAAAAAAAAAAAA', 'active', AT)).toBeUndefined();
    expect(await setRepStatus(T, 'bad', 'active', AT)).toBeUndefined();
    expect(inputsOf(UpdateCommand)).toHaveLength(2);
  });
});
