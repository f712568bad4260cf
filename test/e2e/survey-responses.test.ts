/**
 * Survey calls through the REAL path (POST /v1/calls → dispatch → sandbox carrier → sandbox
 * voice runtime → analysis worker) on the sandbox test numbers: complete (555-0100), partial
 * (555-0110, 555-0111), declined (555-0112, and an opt-out at 555-0130), each stored once
 * with its scores, listed and filtered, with one survey_response.created per response.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { analyzeCall } from '../../shared/calls/analyze-call.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { ALLOWED_AT, type CallWorld, callWorld, newContact, queue, resetClock, setClock, setCpsLimit } from './call-fixtures.js';
import { client, newTenant } from './client.js';

process.env.SANDBOX_STEP_MS = '250';
process.env.ANALYSIS_DELAY_SECONDS = '1';

const stack = useTestStack({ workers: true, schedulerTickMs: 200 });
afterEach(() => resetClock());

let w: CallWorld;
beforeAll(async () => {
  const t = await newTenant('Surveys');
  w = await callWorld(client(stack, t.token), t.tenantId, { template: 'tpl_survey_phone' });
  await setCpsLimit(t.tenantId, w.accountId, 20);
});

const QUESTIONS = [
  {
    id: 'satisfaction',
    prompt: 'How satisfied are you?',
    scoring: { scale: 'csat', points: 5, mapping: { 'very satisfied': 5, satisfied: 4, unsatisfied: 1 }, weight: 2 },
  },
  { id: 'recommend', prompt: 'Would you recommend us?' },
];

describe('survey responses from sandbox survey calls', () => {
  it('stores complete, partial and declined responses with scores, once per call, listed newest first and filterable', { timeout: 120_000 }, async () => {
    setClock(ALLOWED_AT);
    const subs = { '5550100': 'complete', '5550110': 'partial', '5550111': 'partial', '5550112': 'declined', '5550130': 'declined' } as const;
    const placed = await Promise.all(
      Object.entries(subs).map(async ([sub, expected]) => {
        const contact = await newContact(w.api, `+1212${sub}`);
        const res = await queue(w.api, { agent_id: w.agentId, contact_id: contact.id, questions: QUESTIONS });
        expect(res.status, sub).toBe(200);
        return { sub, expected, callId: res.body.call_id as string, contactId: contact.id };
      }),
    );
    const all = await waitFor(
      async () => {
        const page = (await w.api('GET', '/v1/survey-responses?limit=200')).body;
        return page.data.length >= placed.length ? page.data : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 300, message: 'every survey call stored its response' },
    );
    expect(all).toHaveLength(placed.length);
    const byCall = new Map(all.map((r: { call_id: string }) => [r.call_id, r]));
    for (const p of placed) {
      const r = byCall.get(p.callId) as any;
      expect(r, p.sub).toBeDefined();
      expect(r.completion_status, p.sub).toBe(p.expected);
      expect(r).toMatchObject({ agent_version_id: w.versionId, contact_id: p.contactId });
    }
    const complete = byCall.get(placed[0]!.callId) as any;
    // The sandbox callee answers a scored question with one of its mapped labels: scored by the mapping.
    const mapping = QUESTIONS[0]!.scoring!.mapping as Record<string, number>;
    const label = complete.answers.satisfaction.value as string;
    expect(Object.keys(mapping)).toContain(label);
    expect(complete.answers.satisfaction).toMatchObject({ score: mapping[label], points: 5, weight: 2 });
    expect(complete.answers.recommend).toMatchObject({ value: 'Sandbox answer to recommend' });
    expect(complete.answers.recommend).not.toHaveProperty('score');
    expect(complete.score).toBe(mapping[label]! / 5);
    const partial = byCall.get(placed[1]!.callId) as any;
    expect(partial.answers).not.toHaveProperty('recommend'); // the last question went unanswered
    expect(partial.answers.satisfaction.score).toBe(mapping[partial.answers.satisfaction.value]);
    expect(Object.keys((byCall.get(placed[3]!.callId) as any).answers)).toEqual([]);

    // Newest first, filters, one event per response, GET by id, cross-tenant 404.
    expect(all.map((r: { id: string }) => r.id)).toEqual([...all.map((r: { id: string }) => r.id)].sort().reverse());
    const declined = (await w.api('GET', '/v1/survey-responses?completion_status=declined')).body.data;
    expect(declined.map((r: { call_id: string }) => r.call_id).sort()).toEqual([placed[3]!.callId, placed[4]!.callId].sort());
    expect((await w.api('GET', `/v1/survey-responses?agent_version_id=${w.versionId}&completion_status.in=complete,partial`)).body.data).toHaveLength(3);
    expect((await w.api('GET', '/v1/survey-responses?completion_status=maybe')).status).toBe(422);
    const page1 = (await w.api('GET', '/v1/survey-responses?limit=2')).body;
    const page2 = (await w.api('GET', `/v1/survey-responses?limit=2&cursor=${encodeURIComponent(page1.next_cursor)}`)).body;
    expect([...page1.data, ...page2.data].map((r: { id: string }) => r.id)).toEqual(all.slice(0, 4).map((r: { id: string }) => r.id));
    expect((await w.api('GET', `/v1/survey-responses/${complete.id}`)).body).toEqual(complete);
    const other = client(stack, (await newTenant('Other')).token);
    expect((await other('GET', `/v1/survey-responses/${complete.id}`)).status).toBe(404);
    expect((await other('GET', '/v1/survey-responses')).body.data).toEqual([]);

    // A re-sent analysis request stores nothing new: a response is a record of the call.
    expect(await analyzeCall(w.tenantId, placed[0]!.callId)).toBe('already_analyzed');
    const events = (await listTenantEvents(w.tenantId)).filter((e) => e.type === 'survey_response.created');
    expect(events.map((e) => e.data.call_id).sort()).toEqual(placed.map((p) => p.callId).sort());
    expect((await w.api('GET', '/v1/survey-responses?limit=200')).body.data).toHaveLength(placed.length);
  });
});
