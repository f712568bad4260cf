import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type OUTCOME_TYPES, type TOOL_GRANTS, USE_CASES } from '../../shared/schemas/agent-templates.js';
import { outcomeBody } from '../../shared/schemas/runtime-events.js';
import { TEMPLATES } from '../../shared/schemas/template-catalogue.js';
import { useTestStack } from '../support/stack.js';
import { clientHash } from './agent-fixtures.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

const hashOf = (t: Record<string, unknown>) => {
  const fields = ['name', 'use_case', 'version', 'outcome_type', 'tool_grants', 'webhook_payload_schema', 'objectives'];
  return clientHash(Object.fromEntries(fields.map((f) => [f, t[f]])));
};

describe('templates', () => {
  it('lists a published template for every use case and a deprecated one, each with every summary field', async () => {
    const api = client(stack, (await newTenant()).token);
    const res = await api('GET', '/v1/templates?limit=200');
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    const data = res.body.data as Record<string, unknown>[];
    for (const useCase of USE_CASES)
      expect(
        data.some((t) => t.use_case === useCase && t.status === 'published'),
        useCase,
      ).toBe(true);
    expect(data.some((t) => t.status === 'deprecated')).toBe(true);
    for (const t of data) {
      expect(Object.keys(t).sort()).toEqual([
        'content_hash',
        'created_at',
        'id',
        'name',
        'outcome_type',
        'status',
        'tool_grants',
        'updated_at',
        'use_case',
        'version',
        'webhook_payload_schema',
      ]);
    }
    expect(data.map((t) => t.id).sort()).toEqual(TEMPLATES.map((t) => t.id).sort());
  });

  it('reads a template with objectives, and its content_hash is recomputable by a client', async () => {
    const api = client(stack, (await newTenant()).token);
    for (const id of ['tpl_staffing_shift_confirmation', 'tpl_survey_phone', 'tpl_receptionist_front_desk']) {
      const res = await api('GET', `/v1/templates/${id}`);
      expect(res.status).toBe(200);
      expect(res.body.content_hash).toBe(hashOf(res.body));
      expect(res.body.objectives.length).toBeGreaterThan(0);
      for (const o of res.body.objectives) expect(o).toEqual({ id: expect.any(String), description: expect.any(String), required: expect.any(Boolean) });
      expect(res.body.webhook_payload_schema.type).toBe('object');
    }
    const staffing = (await api('GET', '/v1/templates/tpl_staffing_shift_confirmation')).body;
    expect(staffing).toMatchObject({ use_case: 'staffing', outcome_type: 'shift_confirmation', version: 1, status: 'published' });
    expect(staffing.tool_grants).toContain('confirm_shift');
    const survey = (await api('GET', '/v1/templates/tpl_survey_phone')).body;
    expect(survey).toMatchObject({ outcome_type: 'survey_response' });
    expect(survey.tool_grants).toContain('record_survey_answer');
    expect((await api('GET', '/v1/templates/tpl_receptionist_front_desk')).body.tool_grants).toContain('take_message');
  });

  it('filters by use_case, outcome_type and status, and pages with a cursor', async () => {
    const api = client(stack, (await newTenant()).token);
    const deprecated = (await api('GET', '/v1/templates?status=deprecated')).body.data;
    expect(deprecated.map((t: { id: string }) => t.id)).toEqual(['tpl_sdr_legacy']);
    const appt = (await api('GET', '/v1/templates?outcome_type=appointment&use_case=sdr,reminder&status=published')).body.data;
    expect(appt.map((t: { id: string }) => t.id).sort()).toEqual(['tpl_reminder_appointment', 'tpl_sdr_outbound']);
    const first = (await api('GET', '/v1/templates?limit=3')).body;
    expect(first.data).toHaveLength(3);
    expect(first.has_more).toBe(true);
    const second = (await api('GET', `/v1/templates?limit=200&cursor=${encodeURIComponent(first.next_cursor)}`)).body;
    expect(second.data).toHaveLength(TEMPLATES.length - 3);
    const bad = await api('GET', '/v1/templates?use_case=telemarketing&limit=0');
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['query.limit', 'query.use_case']);
  });

  it('404s an unknown or malformed template id and an unknown version; no tenant can change a template', async () => {
    const api = client(stack, (await newTenant()).token);
    for (const path of ['/v1/templates/tpl_nope', '/v1/templates/tpl%23x', '/v1/templates/TPL_SDR', '/v1/templates/tpl_sdr_outbound?version=2']) {
      expect((await api('GET', path)).status, path).toBe(404);
    }
    expect((await api('GET', '/v1/templates/tpl_sdr_outbound?version=1')).status).toBe(200);
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      expect((await api(method, '/v1/templates/tpl_sdr_outbound', { body: { name: 'mine' } })).status).toBe(405);
    }
  });
});

type Tool = (typeof TOOL_GRANTS)[number];
type Outcome = (typeof OUTCOME_TYPES)[number];
/** What each use case needs to do its job: the outcome it records and the tools that record it. */
const SENSE: Record<(typeof USE_CASES)[number], { outcome: Outcome; tools: Tool[] }> = {
  sdr: { outcome: 'appointment', tools: ['check_calendar', 'book_meeting'] },
  staffing: { outcome: 'shift_confirmation', tools: ['confirm_shift', 'record_shift_response'] },
  survey: { outcome: 'survey_response', tools: ['record_survey_answer'] },
  reminder: { outcome: 'appointment', tools: ['check_calendar', 'book_meeting'] },
  custom: { outcome: 'none', tools: ['custom_webhook'] },
  receptionist: { outcome: 'appointment', tools: ['take_message', 'check_calendar', 'book_meeting', 'transfer_to_human'] },
  recruiting: { outcome: 'appointment', tools: ['record_qualification', 'check_calendar', 'book_meeting'] },
};
/** The tool that records each outcome type: a template with that outcome must grant it. */
const RECORDS: Record<Outcome, Tool | undefined> = {
  appointment: 'book_meeting',
  shift_confirmation: 'confirm_shift',
  survey_response: 'record_survey_answer',
  none: undefined,
};

/** The values the voice runtime can record for an outcome type (its outcome event's enum field). */
const runtimeValues = (type: Outcome, field: string): string[] => {
  const option = outcomeBody.options.find((o) => o.shape.outcome_type.value === type)!;
  return (option.shape as unknown as Record<string, z.ZodEnum>)[field]!.options as string[];
};
const STARTS = '2026-11-24T15:00:00Z';
/** Payloads a webhook would carry for every outcome the runtime can record with this template's outcome type. */
function outcomePayloads(t: { outcome_type: Outcome; use_case: string }): Record<string, unknown>[] {
  const base = { call_id: 'cal_01JZZZZZZZZZZZZZZZZZZZZZZZ', contact_id: 'con_01JZZZZZZZZZZZZZZZZZZZZZZZ' };
  switch (t.outcome_type) {
    case 'appointment':
      return runtimeValues('appointment', 'status').map((status) => ({
        ...base,
        outcome: status,
        appointment: ['booked', 'rescheduled'].includes(status) ? { starts_at: STARTS, duration_minutes: 30 } : null,
      }));
    case 'shift_confirmation':
      // the contract's shift_confirmation responses (Campaign outcome): the runtime's, and unreachable when nobody answered.
      return [...new Set([...runtimeValues('shift_confirmation', 'response'), 'confirmed', 'declined', 'tentative', 'unreachable'])].map((response) => ({
        ...base,
        shift_ref: 'SHIFT-42',
        response,
        site: null,
        shift_starts_at: STARTS,
      }));
    case 'survey_response':
      return [
        { ...base, answers: { q1: 'yes', q2: '4' }, completion_status: 'complete' },
        { ...base, contact_id: null, answers: {}, completion_status: 'partial' },
      ];
    case 'none':
      return [
        { ...base, data: { anything: [1, 'two'] } },
        { ...base, contact_id: null },
      ];
  }
}

describe('every seeded template (all of shared/schemas/template-catalogue.ts)', () => {
  it.each(TEMPLATES.map((t) => [t.id] as const))(
    '%s: recomputable hash, objectives, tools and outcome that fit its use case, a payload schema that describes its outcome',
    async (id) => {
      const api = client(stack, (await newTenant()).token);
      const res = await api('GET', `/v1/templates/${id}`);
      expect(res.status).toBe(200);
      const t = res.body;
      expect(t.content_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(t.content_hash).toBe(hashOf(t));

      expect(t.objectives.length).toBeGreaterThan(0);
      for (const o of t.objectives)
        expect(o).toEqual({ id: expect.stringMatching(/^[a-z][a-z0-9_]*$/), description: expect.stringMatching(/\S/), required: expect.any(Boolean) });
      expect(new Set(t.objectives.map((o: { id: string }) => o.id)).size).toBe(t.objectives.length);
      expect(
        t.objectives.some((o: { required: boolean }) => o.required),
        'at least one objective is required',
      ).toBe(true);

      const sense = SENSE[t.use_case as keyof typeof SENSE];
      expect(t.outcome_type).toBe(sense.outcome);
      expect(t.tool_grants).toEqual(expect.arrayContaining(sense.tools));
      if (RECORDS[t.outcome_type as Outcome]) expect(t.tool_grants).toContain(RECORDS[t.outcome_type as Outcome]);
      expect(t.tool_grants, 'every agent can honour an opt-out and hang up').toEqual(expect.arrayContaining(['record_optout', 'end_call']));
      expect(new Set(t.tool_grants).size).toBe(t.tool_grants.length);

      const schema = t.webhook_payload_schema;
      expect(schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false });
      expect(schema.required).toEqual(expect.arrayContaining(['call_id', 'contact_id']));
      for (const field of schema.required) expect(Object.keys(schema.properties), `required ${field} is described`).toContain(field);
      const validator = z.fromJSONSchema(schema);
      const payloads = outcomePayloads(t);
      for (const payload of payloads) expect(validator.safeParse(payload).error?.issues, JSON.stringify(payload)).toBeUndefined();
      const [sample] = payloads;
      expect(validator.safeParse({ ...sample, unexpected: 1 }).success, 'undeclared fields are refused').toBe(false);
      const { call_id: _dropped, ...noCall } = sample as Record<string, unknown>;
      expect(validator.safeParse(noCall).success, 'call_id is required').toBe(false);
      if (t.outcome_type === 'appointment') {
        expect(
          validator.safeParse({ ...sample, outcome: 'booked', appointment: { starts_at: 'tomorrow at 3', duration_minutes: 30 } }).success,
          'starts_at is a date-time',
        ).toBe(false);
      }
      if (t.outcome_type === 'shift_confirmation') expect(validator.safeParse({ ...sample, response: 'maybe' }).success).toBe(false);
    },
  );

  it('covers all eight', () => {
    expect(TEMPLATES).toHaveLength(8);
    expect(new Set(TEMPLATES.map((t) => t.use_case))).toEqual(new Set(USE_CASES));
  });
});
