import { describe, expect, it } from 'vitest';
import { TEMPLATES } from '../../shared/seed/templates.js';
import { USE_CASES } from '../../shared/schemas/templates.js';
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
    for (const useCase of USE_CASES) expect(data.some((t) => t.use_case === useCase && t.status === 'published'), useCase).toBe(true);
    expect(data.some((t) => t.status === 'deprecated')).toBe(true);
    for (const t of data) {
      expect(Object.keys(t).sort()).toEqual(['content_hash', 'created_at', 'id', 'name', 'outcome_type', 'status', 'tool_grants', 'updated_at', 'use_case', 'version', 'webhook_payload_schema']);
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
