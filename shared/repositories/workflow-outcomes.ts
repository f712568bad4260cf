/**
 * Qualification outcomes and their fit reviews (shared/policy/workflow/qualification.ts has the rules).
 *
 *   call partition  QUALIFICATION#<wfo>                 the outcome: answers, revision, latest review
 *   call partition  QUALIFICATION_REVIEW#<wfo>#<fit>    each review, append-only
 *   tenant          WORKFLOW_OUTCOME#<wfo>              → the call (the review route names only the outcome)
 *
 * The runtime's record_qualification joins the runtime-events transaction
 * (`qualificationItems`); a review is one transaction: the outcome's update under the
 * condition `revision = expected_revision` + the review put + `fit_review.created` (+ the
 * idempotency result). Two reviewers on the same revision: exactly one commits.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { callPartition, workflowKeys } from '../db/keys.js';
import { queryCollection } from '../db/query.js';
import { DomainError } from '../errors.js';
import { outboxItems } from '../events/outbox.js';
import { isId, newId } from '../ids.js';
import { type FitDecision, type QualificationOutcome, readQualification, type StoredReview } from '../policy/workflow/qualification.js';
import type { RuntimeEvent } from '../schemas/runtime-events.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
const T = () => tableName();

/** A call's qualification outcomes, oldest first (strongly consistent). */
export async function callQualifications(tenantId: string, callId: string): Promise<QualificationOutcome[]> {
  const items = await queryCollection({ pk: callPartition(tenantId, callId), prefix: workflowKeys.outcomesPrefix }, { ConsistentRead: true });
  const out = items.map((i) => i.outcome as QualificationOutcome);
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * The items a batch of fresh runtime events adds for record_qualification actions: a new
 * outcome (+ its pointer) per action, or an amendment (revision + 1, conditional on the
 * revision read) when the action names `amends`. Reads the call's outcomes only when needed.
 */
export async function qualificationItems(
  tenantId: string,
  call: { id: string; questions?: unknown },
  fresh: readonly { event: RuntimeEvent }[],
  receivedAt: string,
): Promise<TransactItem[]> {
  const actions = fresh
    .map((f) => f.event)
    .filter((e): e is Extract<RuntimeEvent, { type: 'conversation_action' }> => e.type === 'conversation_action' && e.kind === 'record_qualification');
  if (actions.length === 0) return [];
  const existing = await callQualifications(tenantId, call.id);
  const questionIds = Array.isArray(call.questions)
    ? (call.questions as { id?: unknown }[]).map((q) => q.id).filter((id): id is string => typeof id === 'string')
    : [];
  const items: TransactItem[] = [];
  const amended = new Map<string, QualificationOutcome>();
  for (const action of actions) {
    const q = readQualification(action.arguments ?? {});
    const target = q.amends ? (amended.get(q.amends) ?? existing.find((o) => o.action_id === q.amends)) : undefined;
    if (target) {
      const next: QualificationOutcome = {
        ...target,
        answers: { ...target.answers, ...q.answers },
        qualified: q.qualified ?? target.qualified,
        revision: target.revision + 1,
        updated_at: receivedAt,
      };
      // A second amendment of the same outcome in one batch replaces the first (one item, one update).
      const prior = items.findIndex((i) => i.Put?.Item?.sk === workflowKeys.outcome(tenantId, call.id, target.id).sk);
      const put: TransactItem = {
        Put: {
          TableName: T(),
          Item: { ...workflowKeys.outcome(tenantId, call.id, target.id), type: 'qualification_outcome', outcome: next, revision: next.revision },
          ConditionExpression: 'revision = :r',
          ExpressionAttributeValues: { ':r': (existing.find((o) => o.id === target.id) ?? target).revision },
        },
      };
      if (prior >= 0) items[prior] = put;
      else items.push(put);
      amended.set(action.action_id, next);
      amended.set(target.action_id, next);
      continue;
    }
    const outcome: QualificationOutcome = {
      id: newId('wfo'),
      call_id: call.id,
      action_id: action.action_id,
      revision: 1,
      answers: q.answers,
      qualified: q.qualified,
      question_ids: questionIds,
      latest_review: null,
      created_at: receivedAt,
      updated_at: receivedAt,
    };
    amended.set(action.action_id, outcome);
    items.push({
      Put: {
        TableName: T(),
        Item: { ...workflowKeys.outcome(tenantId, call.id, outcome.id), type: 'qualification_outcome', outcome, revision: 1 },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    items.push({
      Put: {
        TableName: T(),
        Item: { ...workflowKeys.pointer(tenantId, outcome.id), type: 'workflow_outcome_pointer', call_id: call.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  }
  return items;
}

export async function getQualification(tenantId: string, outcomeId: string): Promise<QualificationOutcome | undefined> {
  if (!isId(outcomeId) || !outcomeId.startsWith('wfo_')) return undefined;
  const pointer = (await db().send(new GetCommand({ TableName: T(), Key: workflowKeys.pointer(tenantId, outcomeId), ConsistentRead: true }))).Item;
  if (!pointer) return undefined;
  const item = (
    await db().send(new GetCommand({ TableName: T(), Key: workflowKeys.outcome(tenantId, pointer.call_id as string, outcomeId), ConsistentRead: true }))
  ).Item;
  return item?.outcome as QualificationOutcome | undefined;
}

export interface QualificationReview {
  id: string;
  action_id: string;
  revision: number;
  decision: FitDecision;
  reason: string;
  reviewer_ref: string;
  created_at: string;
}

/**
 * Save a review against `expectedRevision`. 404 for an unknown outcome; 409
 * revision_conflict (with current_revision) when the outcome moved on; nothing saved then.
 */
export async function saveFitReview(
  tenantId: string,
  outcomeId: string,
  input: { decision: FitDecision; reason: string; expected_revision: number },
  reviewerRef: string,
  now: Date,
  extraItems?: (review: QualificationReview) => TransactItem[],
): Promise<QualificationReview | undefined> {
  const outcome = await getQualification(tenantId, outcomeId);
  if (!outcome) return undefined;
  const revisionConflict = (current: number) =>
    new DomainError(
      'conflict',
      'revision_conflict',
      `The qualification answers are at revision ${current}; review what is there now and send expected_revision ${current}`,
      { current_revision: current },
    );
  if (outcome.revision !== input.expected_revision) throw revisionConflict(outcome.revision);
  const at = now.toISOString();
  const review: StoredReview = {
    id: newId('fit'),
    decision: input.decision,
    reason: input.reason,
    revision: input.expected_revision,
    reviewer_ref: reviewerRef,
    created_at: at,
  };
  const body: QualificationReview = {
    id: review.id,
    action_id: outcome.id,
    revision: review.revision,
    decision: review.decision,
    reason: review.reason,
    reviewer_ref: reviewerRef,
    created_at: at,
  };
  const next: QualificationOutcome = { ...outcome, revision: outcome.revision + 1, latest_review: review, updated_at: at };
  const items: TransactItem[] = [
    {
      Put: {
        TableName: T(),
        Item: { ...workflowKeys.outcome(tenantId, outcome.call_id, outcome.id), type: 'qualification_outcome', outcome: next, revision: next.revision },
        ConditionExpression: 'revision = :r',
        ExpressionAttributeValues: { ':r': input.expected_revision },
      },
    },
    {
      Put: {
        TableName: T(),
        Item: { ...workflowKeys.review(tenantId, outcome.call_id, outcome.id, review.id), type: 'qualification_review', review: body },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...outboxItems(tenantId, 'fit_review.created', { ...body, call_id: outcome.call_id }, new Date(at)).items,
  ];
  // The caller's items (the idempotency result) commit with the review.
  if (extraItems) items.push(...extraItems(body));
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    if (err instanceof TransactionCanceledException && err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') {
      const current = (await getQualification(tenantId, outcomeId))!;
      throw revisionConflict(current.revision);
    }
    throw err;
  }
  return body;
}
