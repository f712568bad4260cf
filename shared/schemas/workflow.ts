/** Qualification fit reviews (the contract "Qualification review"). */
import * as z from 'zod';
import { FIT_DECISIONS, FIT_REASON_MAX_CHARS } from '../policy/workflow/qualification.js';
import { errorWith, timestamp } from './common.js';
import { multiLineText } from './text.js';

export const fitReviewRequest = z
  .strictObject({
    decision: z.enum(FIT_DECISIONS),
    reason: multiLineText({ min: 1, max: FIT_REASON_MAX_CHARS }),
    expected_revision: z.int().min(1).describe('The revision the reviewer saw (qualification_reviews[…].revision on the call detail)'),
  })
  .meta({ id: 'QualificationReviewRequest' });

export const qualificationReview = z
  .object({
    id: z.string(),
    action_id: z.string().describe('The workflow outcome reviewed'),
    revision: z.int().describe('The revision the review was saved against'),
    decision: z.enum(FIT_DECISIONS),
    reason: z.string(),
    reviewer_ref: z.string().describe('The authenticated API key (api_key:<id>)'),
    created_at: timestamp,
  })
  .meta({ id: 'QualificationReview' });

export const workflowOutcomePath = z.object({ action_id: z.string().min(1).max(64) });
export const revisionConflictError = errorWith('RevisionConflictError', { current_revision: z.int().describe('With `revision_conflict`: the revision now') });
