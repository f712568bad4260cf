/** An outcome's fit-review history, paged like every other list (the reviews are written by shared/repositories/workflow-outcomes.ts). */
import { callPartition, workflowKeys } from '../db/keys.js';
import { type Page, queryPage } from '../pagination/page.js';
import type { QualificationOutcome } from '../policy/workflow/qualification.js';
import type { QualificationReview } from '../repositories/workflow-outcomes.js';

/** One page of an outcome's reviews, oldest first (strongly consistent: a review just saved is listed); cursors are bound to the outcome. */
export function listFitReviews(tenantId: string, outcome: QualificationOutcome, opts: { limit: number; cursor?: string }): Promise<Page<QualificationReview>> {
  return queryPage({
    tenantId,
    scope: `fit-reviews/${outcome.id}`,
    partition: callPartition(tenantId, outcome.call_id),
    skPrefix: workflowKeys.reviewsPrefix(outcome.id),
    newestFirst: false,
    consistentRead: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: (i) => i.review as QualificationReview,
  });
}
