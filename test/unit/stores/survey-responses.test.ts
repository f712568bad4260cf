/** Survey responses (shared/repositories/survey-responses.ts): the once-per-call guard, the response and its event; reads. */
import { beforeEach, describe, expect, it } from 'vitest';
import { surveyKeys } from '../../../shared/db/keys.js';
import { getSurveyResponse, listSurveyResponses, surveyResponseItems } from '../../../shared/repositories/survey-responses.js';
import { memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-11-18T15:00:00.000Z');
const facts = {
  questions: [{ id: 'why' }],
  version: null,
  event_count: 4,
  opted_out: false,
  recorded_responses: [{ question_id: 'why', value: 'Price', at: '2026-11-18T14:59:00Z' }],
  conversation_actions: [],
};
beforeEach(() => table.reset());

describe('survey responses store', () => {
  it("writes the call's guard and the response only if absent, with survey_response.created", () => {
    const items = surveyResponseItems({ tenant_id: T, id: CALL, contact_id: null }, 'agv_1', facts, at);
    const [guard, response, ...outbox] = items;
    expect(guard!.Put).toMatchObject({
      Item: { ...surveyKeys.byCall(T, CALL), type: 'survey_response_guard' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    const item = response!.Put!.Item!;
    expect(guard!.Put!.Item!.response_id).toBe(item.id);
    expect(response!.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(pk)' });
    expect(item).toMatchObject({
      ...surveyKeys.response(T, item.id),
      call_id: CALL,
      agent_version_id: 'agv_1',
      contact_id: null,
      created_at: at.toISOString(),
    });
    expect(item.answers).toEqual({ why: { value: 'Price', answered_at: '2026-11-18T14:59:00Z' } });
    expect(JSON.stringify(outbox)).toContain('survey_response.created');
  });

  it('writes nothing for a call that asked no question', () => {
    expect(surveyResponseItems({ tenant_id: T, id: CALL }, 'agv_1', { ...facts, questions: [] }, at)).toEqual([]);
  });

  it('reads a response as presented, and lists them newest first', async () => {
    const [, first] = surveyResponseItems({ tenant_id: T, id: CALL }, 'agv_1', facts, at);
    const [, second] = surveyResponseItems({ tenant_id: T, id: 'cal_01JBBBBBBBBBBBBBBBBBBBBBBB' }, 'agv_1', facts, at);
    table.put(first!.Put!.Item as never);
    table.put(second!.Put!.Item as never);
    const id = first!.Put!.Item!.id as string;
    const read = await getSurveyResponse(T, id);
    expect(read).toMatchObject({ id, call_id: CALL, completion_status: 'complete' });
    expect(read).not.toHaveProperty('pk');
    expect(await getSurveyResponse(T, 'bad')).toBeUndefined();
    const page = await listSurveyResponses(T, { limit: 1, filters: [] });
    expect(page.data.map((r) => r.id)).toEqual([second!.Put!.Item!.id]);
    expect(page.has_more).toBe(true);
  });
});
