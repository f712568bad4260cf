/** SurveyResponse (the contract). */
import * as z from 'zod';
import { COMPLETION_STATUSES } from '../policy/surveys/survey-response.js';
import { timestamp } from './common.js';

const surveyAnswer = z
  .object({
    value: z.string().describe('The answer as recorded'),
    answered_at: timestamp.nullable(),
    score: z
      .int()
      .nullable()
      .optional()
      .describe("Scored questions: the points the question's scoring.mapping gives the value (null: the value maps to nothing)"),
    points: z.int().optional().describe("Scored questions: the scale's points"),
    weight: z.number().optional().describe("Scored questions: the question's weight (default 1)"),
  })
  .meta({ id: 'SurveyAnswer' });

export const surveyResponse = z
  .object({
    id: z.string(),
    call_id: z.string(),
    agent_version_id: z.string(),
    contact_id: z.string().nullable(),
    answers: z.record(z.string(), surveyAnswer).describe('Keyed by question id; unanswered questions are absent'),
    completion_status: z.enum(COMPLETION_STATUSES).describe('complete: every required question answered; partial: some; declined: the callee refused'),
    score: z.number().nullable().describe('Weighted mean of the scored answers as a share of their scales (0–1); null when none is scored'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'SurveyResponse' });
export type SurveyResponse = z.infer<typeof surveyResponse>;

export const surveyResponsePath = z.object({ response_id: z.string().min(1).max(64) });
