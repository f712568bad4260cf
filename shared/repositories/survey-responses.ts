/**
 * Survey responses: `TENANT#<t>` / `SURVEY_RESPONSE#<srv>` (the list, newest first by id)
 * plus a once-per-call guard in the call's partition (`SURVEY_RESPONSE`). Both are put, with
 * `survey_response.created`, inside the analysis transaction (storeAnalysis), which commits
 * once per call: a response is a record of the call, never recomputed.
 */
import { GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { surveyKeys } from '../db/keys.js';
import { outboxItems } from '../events/outbox.js';
import { isId, newId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import { buildSurveyResponse, type SurveyCallFacts } from '../policy/surveys/survey-response.js';
import type { SurveyResponse } from '../schemas/surveys.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const presentSurveyResponse = (item: Record<string, unknown>): SurveyResponse => ({
  id: item.id as string,
  call_id: item.call_id as string,
  agent_version_id: item.agent_version_id as string,
  contact_id: (item.contact_id as string | null) ?? null,
  answers: item.answers as SurveyResponse['answers'],
  completion_status: item.completion_status as SurveyResponse['completion_status'],
  score: (item.score as number | null) ?? null,
  created_at: item.created_at as string,
  updated_at: item.updated_at as string,
});

/** The items that store a call's survey response (none when the call asked no survey question). */
export function surveyResponseItems(
  call: { tenant_id: string; id: string; contact_id?: string | null },
  agentVersionId: string,
  facts: SurveyCallFacts,
  at: Date,
): TransactItem[] {
  const built = buildSurveyResponse(facts);
  if (!built) return [];
  const iso = at.toISOString();
  const response = presentSurveyResponse({
    id: newId('srv'),
    call_id: call.id,
    agent_version_id: agentVersionId,
    contact_id: call.contact_id ?? null,
    ...built,
    created_at: iso,
    updated_at: iso,
  });
  return [
    {
      Put: {
        TableName: tableName(),
        Item: { ...surveyKeys.byCall(call.tenant_id, call.id), type: 'survey_response_guard', response_id: response.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...surveyKeys.response(call.tenant_id, response.id), type: 'survey_response', tenant_id: call.tenant_id, ...response },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...outboxItems(call.tenant_id, 'survey_response.created', { ...response }, at).items,
  ];
}

export async function getSurveyResponse(tenantId: string, responseId: string): Promise<SurveyResponse | undefined> {
  if (!isId(responseId)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: surveyKeys.response(tenantId, responseId), ConsistentRead: true }));
  return out.Item ? presentSurveyResponse(out.Item) : undefined;
}

export function listSurveyResponses(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: 'survey_responses',
    skPrefix: surveyKeys.responsesPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: presentSurveyResponse,
  });
}
