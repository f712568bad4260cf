/** An outcome's fit-review history (shared/workflow/fit-reviews.ts) over the workflow-outcomes store, all on the in-memory table. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { QualificationOutcome } from '../../../shared/policy/workflow/qualification.js';
import { getQualification, qualificationItems, saveFitReview } from '../../../shared/repositories/workflow-outcomes.js';
import { listFitReviews } from '../../../shared/workflow/fit-reviews.js';
import { memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-11-18T15:00:00.000Z');
beforeEach(() => table.reset());

async function outcome(): Promise<QualificationOutcome> {
  const action = { event: { type: 'conversation_action', kind: 'record_qualification', action_id: 'act-1', arguments: { answers: { budget: 1 } } } as never };
  const items = await qualificationItems(T, { id: CALL }, [action], 'r1');
  for (const i of items) table.put(i.Put!.Item as never);
  return items[0]!.Put!.Item!.outcome as QualificationOutcome;
}

describe('listFitReviews', () => {
  it('pages the reviews oldest first, each saved under the revision it reviewed; a cursor is bound to its outcome', async () => {
    const o = await outcome();
    const first = await saveFitReview(T, o.id, { decision: 'fit', reason: 'budget ok', expected_revision: 1 } as never, 'usr_1', at);
    const second = await saveFitReview(T, o.id, { decision: 'not_fit', reason: 'changed', expected_revision: 2 } as never, 'usr_2', at);
    expect((await getQualification(T, o.id))?.revision).toBe(3);
    const current = (await getQualification(T, o.id))!;
    const page = await listFitReviews(T, current, { limit: 1 });
    expect(page.data.map((r) => r.id)).toEqual([first!.id]);
    expect(page.has_more).toBe(true);
    const next = await listFitReviews(T, current, { limit: 1, cursor: page.next_cursor! });
    expect(next.data.map((r) => [r.id, r.revision])).toEqual([[second!.id, 2]]);
    await expect(listFitReviews(T, { ...current, id: 'wfo_01JZZZZZZZZZZZZZZZZZZZZZZZ' }, { limit: 1, cursor: page.next_cursor! })).rejects.toMatchObject({
      issues: [expect.objectContaining({ type: 'cursor_invalid' })],
    });
  });

  it('a review on a stale revision is refused and not listed', async () => {
    const o = await outcome();
    await saveFitReview(T, o.id, { decision: 'fit', reason: 'a', expected_revision: 1 } as never, 'usr_1', at);
    await expect(saveFitReview(T, o.id, { decision: 'fit', reason: 'b', expected_revision: 1 } as never, 'usr_2', at)).rejects.toMatchObject({
      code: 'revision_conflict',
    });
    expect((await listFitReviews(T, (await getQualification(T, o.id))!, { limit: 10 })).data).toHaveLength(1);
  });
});
