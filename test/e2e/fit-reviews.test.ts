/**
 * Qualification outcomes and fit reviews over the local stack: the runtime's
 * record_qualification creates (and amends) a workflow outcome with a revision; reviews are
 * saved against the revision seen, so concurrent reviewers of one revision: exactly one wins.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';
import { agentNumberWorld } from './inbound-fixtures.js';

const stack = useTestStack({ workers: false });
let n = 0;
const eid = (p: string) => `${p}-${Date.now().toString(36)}-${++n}`;
const at = () => new Date().toISOString();

/** A tenant whose number answers with an agent, and one inbound call with its runtime client. */
async function callWithRuntime() {
  const world = await agentNumberWorld(stack);
  const { token, call } = await world.ring();
  const runtime = client(stack, token!);
  const post = (events: unknown[]) => runtime('POST', `/runtime/v1/calls/${call.id}/events`, { body: { events } });
  return { ...world, callId: call.id, post };
}

const qualification = (actionId: string, args: Record<string, unknown>) => ({
  id: eid('act'),
  type: 'conversation_action',
  at: at(),
  action_id: actionId,
  kind: 'record_qualification',
  arguments: args,
});
const review = (api: ReturnType<typeof client>, id: string, body: Record<string, unknown>, key: string = randomUUID()) =>
  api('POST', `/v1/workflow-outcomes/${id}/fit-reviews`, { body, headers: { 'idempotency-key': key } });

describe('record_qualification → a workflow outcome on the call detail', () => {
  it('shows the receipt unreviewed at revision 1 with its coverage; an amendment bumps the revision', async () => {
    const s = await callWithRuntime();
    expect(
      (
        await s.post([
          { id: eid('turn'), type: 'turn', at: at(), speaker: 'contact', text: 'Hi' },
          { id: eid('rr'), type: 'recorded_response', at: at(), kind: 'question', question_id: 'budget', value: '10k' },
          qualification('q1', { answers: { budget: '10k', timeline: '' }, qualified: true }),
        ])
      ).status,
    ).toBe(200);
    const detail = (await s.api('GET', `/v1/calls/${s.callId}`)).body;
    const [receipt, view] = Object.entries(detail.qualification_reviews)[0] as [string, any];
    expect(receipt).toMatch(/^wfo_/);
    expect(view).toMatchObject({
      action_id: 'q1',
      revision: 1,
      answers: { budget: '10k', timeline: '' },
      fit_review: { status: 'unreviewed', latest_review: null },
    });
    expect(view.qualification_coverage).toEqual({
      status: 'available',
      questions: [
        { question_id: 'budget', answer_status: 'answered' },
        { question_id: 'timeline', answer_status: 'unanswered' },
      ],
    });
    expect(detail.recorded_responses[0].fit_review.status).toBe('unreviewed');

    await s.post([qualification('q2', { amends: 'q1', answers: { timeline: 'Q3' } })]);
    const amended = (await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews[receipt];
    expect(amended.revision).toBe(2);
    expect(amended.qualification_coverage.questions.every((q: { answer_status: string }) => q.answer_status === 'answered')).toBe(true);
    expect(Object.keys((await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews)).toEqual([receipt]);
  });
});

describe('POST /v1/workflow-outcomes/{action_id}/fit-reviews', () => {
  it('saves against the current revision, refuses a stale one with current_revision, and shows the decision on the call', async () => {
    const s = await callWithRuntime();
    await s.post([
      { id: eid('rr'), type: 'recorded_response', at: at(), kind: 'question', question_id: 'budget', value: '10k' },
      qualification('q1', { answers: { budget: '10k' } }),
    ]);
    const receipt = Object.keys((await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews)[0]!;
    await s.post([qualification('q2', { amends: 'q1', answers: { budget: '12k' } })]); // revision 2

    const stale = await review(s.api, receipt, { decision: 'good_fit', reason: 'Budget fits', expected_revision: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'revision_conflict', current_revision: 2 });

    const key = randomUUID();
    const saved = await review(s.api, receipt, { decision: 'good_fit', reason: 'Budget fits', expected_revision: 2 }, key);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ action_id: receipt, revision: 2, decision: 'good_fit', reason: 'Budget fits', reviewer_ref: `api_key:${s.keyId}` });
    const replay = await review(s.api, receipt, { decision: 'good_fit', reason: 'Budget fits', expected_revision: 2 }, key);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect(replay.body).toEqual(saved.body);

    const detail = (await s.api('GET', `/v1/calls/${s.callId}`)).body;
    expect(detail.qualification_reviews[receipt]).toMatchObject({
      revision: 3,
      fit_review: { status: 'good_fit', reason: 'Budget fits', latest_review: { decision: 'good_fit', revision: 2 } },
    });
    expect(detail.recorded_responses[0].fit_review).toEqual({ status: 'good_fit', reason_truncated: false, latest_review: { decision: 'good_fit' } });
    // The list shows the same.
    const listed = (await s.api('GET', '/v1/calls')).body.data.find((c: { id: string }) => c.id === s.callId);
    expect(listed.qualification_reviews[receipt].fit_review.status).toBe('good_fit');

    // Append-only: a later review against revision 3 changes the latest; one event per saved review.
    expect((await review(s.api, receipt, { decision: 'needs_more_info', reason: 'x'.repeat(2000), expected_revision: 3 })).status).toBe(200);
    const later = (await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews[receipt];
    expect(later.fit_review).toMatchObject({ status: 'needs_more_info', reason_truncated: true });
    const events = (await listTenantEvents(s.tenantId)).filter((e) => e.type === 'fit_review.created');
    expect(events.map((e) => e.data.decision)).toEqual(['good_fit', 'needs_more_info']);
    const history = (await s.api('GET', `/v1/workflow-outcomes/${receipt}/fit-reviews`)).body.data;
    expect(history.map((r: { decision: string; revision: number }) => [r.decision, r.revision])).toEqual([
      ['good_fit', 2],
      ['needs_more_info', 3],
    ]);
    expect(history[0]).toEqual(saved.body);
  });

  it('answers amended after a review make the review stale: status back to unreviewed, latest_review kept', async () => {
    const s = await callWithRuntime();
    await s.post([
      { id: eid('rr'), type: 'recorded_response', at: at(), kind: 'question', question_id: 'budget', value: '10k' },
      qualification('q1', { answers: { budget: '10k' }, qualified: true }),
    ]);
    const receipt = Object.keys((await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews)[0]!;
    expect((await review(s.api, receipt, { decision: 'good_fit', reason: 'Budget fits', expected_revision: 1 })).status).toBe(200);
    expect((await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews[receipt].fit_review.status).toBe('good_fit');

    await s.post([qualification('q2', { amends: 'q1', answers: { budget: '2k' } })]);
    const detail = (await s.api('GET', `/v1/calls/${s.callId}`)).body;
    const view = detail.qualification_reviews[receipt];
    expect(view.revision).toBe(3);
    expect(view.fit_review).toMatchObject({ status: 'unreviewed', reason: 'Budget fits', latest_review: { decision: 'good_fit', revision: 1 } });
    expect(detail.recorded_responses[0].fit_review).toEqual({ status: 'unreviewed', reason_truncated: false, latest_review: { decision: 'good_fit' } });
    // A review of the amended answers is current again.
    expect((await review(s.api, receipt, { decision: 'poor_fit', reason: 'Budget too small now', expected_revision: 3 })).status).toBe(200);
    expect((await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews[receipt].fit_review.status).toBe('poor_fit');
  });

  it('two reviewers on the same revision at once: exactly one wins', async () => {
    const s = await callWithRuntime();
    await s.post([qualification('q1', { answers: { budget: '10k' } })]);
    const receipt = Object.keys((await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews)[0]!;
    const results = await Promise.all(
      ['good_fit', 'poor_fit', 'needs_more_info', 'good_fit'].map((decision) =>
        review(s.api, receipt, { decision, reason: `I say ${decision}`, expected_revision: 1 }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    const winner = results.find((r) => r.status === 200)!.body;
    const detail = (await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews[receipt];
    expect(detail).toMatchObject({ revision: 2, fit_review: { status: winner.decision } });
    expect((await listTenantEvents(s.tenantId)).filter((e) => e.type === 'fit_review.created')).toHaveLength(1);
  });

  it('validates, requires an Idempotency-Key, and answers 404 for unknown or another tenant’s outcome', async () => {
    const s = await callWithRuntime();
    await s.post([qualification('q1', { answers: { budget: '10k' } })]);
    const receipt = Object.keys((await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews)[0]!;
    const types = async (body: unknown) =>
      (await review(s.api, receipt, body as Record<string, unknown>)).body.detail.map((d: { loc: unknown[]; type: string }) => `${d.loc.join('.')}:${d.type}`);
    expect(await types({ decision: 'maybe', reason: 'r', expected_revision: 1 })).toEqual(['body.decision:enum']);
    expect(await types({ decision: 'good_fit', reason: '', expected_revision: 1 })).toEqual(['body.reason:string_too_short']);
    expect(await types({ decision: 'good_fit', reason: 'x'.repeat(2001), expected_revision: 1 })).toEqual(['body.reason:string_too_long']);
    expect(await types({ decision: 'good_fit', reason: 'r' })).toEqual(['body.expected_revision:missing']);
    const noKey = await s.api('POST', `/v1/workflow-outcomes/${receipt}/fit-reviews`, { body: { decision: 'good_fit', reason: 'r', expected_revision: 1 } });
    expect(noKey.status).toBe(422);
    expect(noKey.body.detail[0].loc).toEqual(['header', 'idempotency-key']);
    const other = client(stack, (await newTenant('Other')).token);
    expect((await review(other, receipt, { decision: 'good_fit', reason: 'r', expected_revision: 1 })).status).toBe(404);
    expect((await other('GET', `/v1/workflow-outcomes/${receipt}/fit-reviews`)).status).toBe(404);
    expect((await review(s.api, 'wfo_01J00000000000000000000000', { decision: 'good_fit', reason: 'r', expected_revision: 1 })).status).toBe(404);
    expect((await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews[receipt].revision).toBe(1);
  });

  it('lists reviews like every other list: limit and cursor pages, bad limit, unknown parameters and foreign cursors are 422', async () => {
    const s = await callWithRuntime();
    await s.post([qualification('q1', { answers: { budget: '10k' } })]);
    const receipt = Object.keys((await s.api('GET', `/v1/calls/${s.callId}`)).body.qualification_reviews)[0]!;
    for (const [i, decision] of ['good_fit', 'poor_fit', 'needs_more_info'].entries())
      expect((await review(s.api, receipt, { decision, reason: 'r', expected_revision: i + 1 })).status).toBe(200);
    const url = `/v1/workflow-outcomes/${receipt}/fit-reviews`;
    const first = await s.api('GET', `${url}?limit=2`);
    expect(first.body).toMatchObject({ has_more: true });
    expect(first.body.data.map((r: { revision: number }) => r.revision)).toEqual([1, 2]);
    const second = await s.api('GET', `${url}?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((r: { revision: number }) => r.revision)).toEqual([3]);

    const refused = async (query: string) => {
      const res = await s.api('GET', `${url}?${query}`);
      expect(res.status).toBe(422);
      return res.body.detail.map((d: { loc: unknown[]; type: string }) => `${d.loc.join('.')}:${d.type}`);
    };
    expect(await refused('limit=abc')).toEqual(['query.limit:int_parsing']);
    expect(await refused('limit=0')).toEqual(['query.limit:greater_than_equal']);
    expect(await refused('decision=good_fit')).toEqual(['query.decision:extra_forbidden']);
    expect(await refused('cursor=bogus')).toEqual(['query.cursor:cursor_invalid']);
    // A cursor of another list (the calls list) is refused here.
    const otherList = await s.api('GET', '/v1/calls?limit=1');
    if (otherList.body.next_cursor) expect(await refused(`cursor=${encodeURIComponent(otherList.body.next_cursor)}`)).toEqual(['query.cursor:cursor_invalid']);
  });
});
