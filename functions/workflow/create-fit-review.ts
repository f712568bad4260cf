import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { saveFitReview } from '../../shared/repositories/workflow-outcomes.js';
import { fitReviewRequest, qualificationReview, revisionConflictError, workflowOutcomePath } from '../../shared/schemas/workflow.js';

/**
 * POST /v1/workflow-outcomes/{action_id}/fit-reviews (Idempotency-Key required) — saves a
 * team decision against the qualification answers at `expected_revision`; the outcome's
 * revision then moves on, so a second reviewer of the same revision gets 409
 * revision_conflict with current_revision (nothing saved). Reviews are append-only; the
 * call detail shows the latest. Unknown or another tenant's outcome → 404.
 */
export const handler = defineRoute(
  'createFitReview',
  bearer,
  { path: workflowOutcomePath, body: fitReviewRequest, responses: { 200: qualificationReview, 409: revisionConflictError } },
  async ({ principal, path, body, idempotency }) => {
    const review = await saveFitReview(
      principal.tenantId,
      path.action_id,
      body,
      `api_key:${principal.keyId}`,
      now(),
      idempotency && ((result) => [idempotency.commitItem({ status: 200, body: result })]),
    );
    if (!review) throw notFound('Workflow outcome');
    return { ...ok(review), idempotencyCommitted: Boolean(idempotency) };
  },
);
