import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getQualification } from '../../shared/repositories/workflow-outcomes.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { qualificationReview, workflowOutcomePath } from '../../shared/schemas/workflow.js';
import { listFitReviews } from '../../shared/workflow/fit-reviews.js';

/**
 * GET /v1/workflow-outcomes/{action_id}/fit-reviews — the outcome's review history, oldest
 * first (append-only; at most one per revision), paged like every other list: `limit`,
 * `cursor` (bound to this outcome), and nothing else.
 */
export const handler = defineRoute(
  'listFitReviews',
  bearer,
  { path: workflowOutcomePath, query: pageQuery, responses: { 200: cursorPage(qualificationReview).meta({ id: 'QualificationReviewHistory' }) } },
  async ({ principal, path, query }) => {
    const outcome = await getQualification(principal.tenantId, path.action_id);
    if (!outcome) throw notFound('Workflow outcome');
    return ok(await listFitReviews(principal.tenantId, outcome, query));
  },
);
