/** Qualification outcomes and fit reviews (shared/repositories/workflow-outcomes.ts): revisions, amendments, one review per revision. */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { workflowKeys } from '../../../shared/db/keys.js';
import { DomainError } from '../../../shared/errors.js';
import { callQualifications, getQualification, qualificationItems, saveFitReview } from '../../../shared/repositories/workflow-outcomes.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-11-18T15:00:00.000Z');
const action = (action_id: string, args: Record<string, unknown>) => ({
  event: { type: 'conversation_action', kind: 'record_qualification', action_id, arguments: args } as never,
});
beforeEach(() => table.reset());

async function record(args: Record<string, unknown>, actionId = 'act-1') {
  const items = await qualificationItems(T, { id: CALL, questions: [{ id: 'budget' }] }, [action(actionId, args)], 'r1');
  for (const i of items) table.put(i.Put!.Item as never);
  return items;
}

describe('qualificationItems', () => {
  it('nothing for a batch without record_qualification, and no read', async () => {
    expect(await qualificationItems(T, { id: CALL }, [{ event: { type: 'transcript_turn' } as never }], 'r')).toEqual([]);
    expect(table.sent).toEqual([]);
  });

  it('a new outcome at revision 1 with its pointer, both only if absent', async () => {
    const [outcome, pointer] = await record({ answers: { budget: 5000 }, qualified: true });
    const o = outcome!.Put!.Item!.outcome;
    expect(o).toMatchObject({ call_id: CALL, action_id: 'act-1', revision: 1, answers: { budget: '5000' }, qualified: true, question_ids: ['budget'] });
    expect(outcome!.Put!.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(pointer!.Put).toMatchObject({ Item: { ...workflowKeys.pointer(T, o.id), call_id: CALL }, ConditionExpression: 'attribute_not_exists(pk)' });
    expect(await getQualification(T, o.id)).toEqual(o);
    expect(await callQualifications(T, CALL)).toEqual([o]);
  });

  it('an amendment merges the answers at revision + 1, conditioned on the revision read', async () => {
    const [first] = await record({ answers: { budget: 5000 } });
    const id = first!.Put!.Item!.outcome.id;
    const items = await qualificationItems(
      T,
      { id: CALL },
      [action('act-2', { amends: 'act-1', answers: { timeline: 'Q1' } }), action('act-3', { amends: 'act-2', qualified: false })],
      'r2',
    );
    expect(items).toHaveLength(1);
    expect(items[0]!.Put).toMatchObject({ ConditionExpression: 'revision = :r', ExpressionAttributeValues: { ':r': 1 } });
    expect(items[0]!.Put!.Item!.outcome).toMatchObject({ id, revision: 3, answers: { budget: '5000', timeline: 'Q1' }, qualified: false });
  });
});

describe('saveFitReview', () => {
  it('reviews the revision expected: outcome + 1, the review, fit_review.created, and the caller’s items', async () => {
    const [first] = await record({ answers: {} });
    const id = first!.Put!.Item!.outcome.id;
    ddb.on(TransactWriteCommand).resolves({});
    const review = await saveFitReview(T, id, { decision: 'fit', reason: 'r', expected_revision: 1 } as never, 'usr_1', at, () => [
      { Put: { TableName: 't', Item: { pk: 'x', sk: 'y' } } },
    ]);
    expect(review).toMatchObject({ action_id: id, revision: 1, reviewer_ref: 'usr_1' });
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items[0].Put).toMatchObject({ ConditionExpression: 'revision = :r', ExpressionAttributeValues: { ':r': 1 }, Item: { revision: 2 } });
    expect(items[1].Put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(JSON.stringify(items)).toContain('fit_review.created');
    expect(items.at(-1).Put.Item).toEqual({ pk: 'x', sk: 'y' });
  });

  it('409 revision_conflict with the current revision when stale, before or at the commit; undefined when unknown', async () => {
    const [first] = await record({ answers: {} });
    const id = first!.Put!.Item!.outcome.id;
    const stale = await saveFitReview(T, id, { decision: 'fit', reason: 'r', expected_revision: 2 } as never, 'u', at).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(DomainError);
    expect(stale).toMatchObject({ code: 'revision_conflict', extra: { current_revision: 1 } });
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    await expect(saveFitReview(T, id, { decision: 'fit', reason: 'r', expected_revision: 1 } as never, 'u', at)).rejects.toMatchObject({
      code: 'revision_conflict',
    });
    expect(await saveFitReview(T, 'wfo_01JZZZZZZZZZZZZZZZZZZZZZZZ', { decision: 'fit', reason: 'r', expected_revision: 1 } as never, 'u', at)).toBeUndefined();
    expect(await getQualification(T, 'cal_01JZZZZZZZZZZZZZZZZZZZZZZZ')).toBeUndefined();
  });
});
