import * as z from 'zod';
import { notFound } from '../../shared/http/errors.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getQualification, listFitReviews } from '../../shared/repositories/workflow-outcomes.js';
import { qualificationReview, workflowOutcomePath } from '../../shared/schemas/workflow.js';

/** GET /v1/workflow-outcomes/{action_id}/fit-reviews — the outcome's review history, oldest first (append-only; at most one per revision). */
export const handler = defineRoute('listFitReviews', { path: workflowOutcomePath, responses: { 200: z.object({ data: z.array(qualificationReview) }).meta({ id: 'QualificationReviewHistory' }) } }, async ({ principal, path }) => {
  const outcome = await getQualification(principal.tenantId, path.action_id);
  if (!outcome) throw notFound('Workflow outcome');
  return ok({ data: await listFitReviews(principal.tenantId, outcome) });
});
