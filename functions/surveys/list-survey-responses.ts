import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { COMPLETION_STATUSES } from '../../shared/policy/surveys/survey-response.js';
import { listSurveyResponses } from '../../shared/repositories/survey-responses.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { surveyResponse } from '../../shared/schemas/surveys.js';

/** GET /v1/survey-responses — newest first; filters agent_version_id, completion_status, created_at (the API conventions). */
export const handler = defineListRoute(
  'listSurveyResponses',
  bearer,
  {
    query: pageQuery,
    filters: { agent_version_id: { kind: 'string' }, completion_status: { kind: 'enum', values: COMPLETION_STATUSES }, created_at: { kind: 'datetime' } },
    responses: { 200: cursorPage(surveyResponse) },
  },
  async ({ principal, query, filters }) => ok(await listSurveyResponses(principal.tenantId, { ...query, filters })),
);
