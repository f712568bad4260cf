import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getSurveyResponse } from '../../shared/repositories/survey-responses.js';
import { surveyResponse, surveyResponsePath } from '../../shared/schemas/surveys.js';

/** GET /v1/survey-responses/{response_id} — another tenant's id is a 404. */
export const handler = defineRoute(
  'getSurveyResponse',
  bearer,
  { path: surveyResponsePath, responses: { 200: surveyResponse } },
  async ({ principal, path }) => {
    const response = await getSurveyResponse(principal.tenantId, path.response_id);
    if (!response) throw notFound('Survey response');
    return ok(response);
  },
);
