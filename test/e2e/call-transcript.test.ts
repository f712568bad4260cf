/**
 * GET /v1/calls/{call_id}/transcript over the local stack: the turns the runtime reported
 * with the call's token (POST /runtime/v1/calls/{id}/events), in the order it reported them
 * (not the order of their ids), paged with signed cursors; tenant-scoped; bad paging is 422.
 */
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';
import { agentNumberWorld } from './inbound-fixtures.js';

const stack = useTestStack({ workers: false });
const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 12, 0, s)).toISOString();
let n = 0;

/** An inbound call that reported a disclosure greeting and five more turns (in two batches), plus non-turn events. */
async function talkedCall() {
  const world = await agentNumberWorld(stack);
  const { call, token } = await world.ring();
  const runtime = client(stack, token!);
  const post = async (events: unknown[]) => expect((await runtime('POST', `/runtime/v1/calls/${call.id}/events`, { body: { events } })).status).toBe(200);
  // Ids run backwards against the reporting order: the transcript must follow seq, not ids.
  const id = (k: number) => `t${9 - k}-${Date.now().toString(36)}-${++n}`;
  const greeting = 'Hello, this is an automated assistant calling on behalf of Acme. This call may be recorded.';
  await post([
    { id: id(0), type: 'disclosure', at: at(0), text: greeting },
    { id: id(1), type: 'turn', at: at(0), speaker: 'agent', text: greeting, start_ms: 0, end_ms: 4000 },
    { id: id(2), type: 'turn', at: at(5), speaker: 'contact', text: 'Hi, I need an appointment.', start_ms: 5000, end_ms: 7000 },
    {
      id: id(3),
      type: 'turn',
      at: at(8),
      speaker: 'agent',
      text: 'Sure, what day',
      start_ms: 7600,
      end_ms: 8600,
      latency_ms: 600,
      interrupted: true,
      model: 'openai:gpt-4o-mini',
    },
  ]);
  await post([
    { id: id(4), type: 'turn', at: at(9), speaker: 'contact', text: 'Tuesday.', latency_ms: 5 },
    { id: id(5), type: 'recorded_response', at: at(9), kind: 'objective', question_id: 'greet', value: 'yes' },
    {
      id: id(6),
      type: 'turn',
      at: at(10),
      speaker: 'agent',
      text: 'Tuesday at ten works.',
      latency_ms: 450,
      model: 'anthropic:claude-haiku',
      passage_ids: ['kpd_hours.p2'],
    },
    { id: id(7), type: 'turn', at: at(12), speaker: 'contact', text: 'Great, thanks.' },
  ]);
  return { world, call, greeting };
}

describe('a call transcript', () => {
  it('lists the turns in reporting order, the greeting first, with latency (agent turns only), interruptions, model and passage ids; pages with cursors', async () => {
    const { world, call, greeting } = await talkedCall();
    const all = await world.api('GET', `/v1/calls/${call.id}/transcript`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      data: [
        { speaker: 'agent', text: greeting, started_at: at(0), latency_ms: null, interrupted: false, model: null, passage_ids: [] },
        { speaker: 'contact', text: 'Hi, I need an appointment.', started_at: at(5), latency_ms: null, interrupted: false, model: null, passage_ids: [] },
        { speaker: 'agent', text: 'Sure, what day', started_at: at(8), latency_ms: 600, interrupted: true, model: 'openai:gpt-4o-mini', passage_ids: [] },
        // A contact turn's latency is not a reply latency: null even when reported.
        { speaker: 'contact', text: 'Tuesday.', started_at: at(9), latency_ms: null, interrupted: false, model: null, passage_ids: [] },
        {
          speaker: 'agent',
          text: 'Tuesday at ten works.',
          started_at: at(10),
          latency_ms: 450,
          interrupted: false,
          model: 'anthropic:claude-haiku',
          passage_ids: ['kpd_hours.p2'],
        },
        { speaker: 'contact', text: 'Great, thanks.', started_at: at(12), latency_ms: null, interrupted: false, model: null, passage_ids: [] },
      ],
      next_cursor: null,
      has_more: false,
    });

    const seen: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { status: number; body: { data: unknown[]; next_cursor: string | null; has_more: boolean } } = await world.api(
        'GET',
        `/v1/calls/${call.id}/transcript?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      seen.push(...page.body.data);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(2);
    expect(seen).toEqual(all.body.data);
  });

  it("a call with no turns yet is an empty page; another tenant's call, or no such call, is 404", async () => {
    const world = await agentNumberWorld(stack);
    const { call } = await world.ring();
    expect((await world.api('GET', `/v1/calls/${call.id}/transcript`)).body).toEqual({ data: [], next_cursor: null, has_more: false });
    const stranger = client(stack, (await newTenant()).token);
    const foreign = await stranger('GET', `/v1/calls/${call.id}/transcript`);
    expect(foreign.status).toBe(404);
    expect((await world.api('GET', '/v1/calls/cal_01JZZZZZZZZZZZZZZZZZZZZZZZ/transcript')).status).toBe(404);
  });

  it('a bad limit or cursor is 422 at its loc: unparsable, forged, or issued for another call', async () => {
    const { world, call } = await talkedCall();
    for (const limit of ['0', '201', 'abc']) {
      const res = await world.api('GET', `/v1/calls/${call.id}/transcript?limit=${limit}`);
      expect(res.status, limit).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'limit']);
    }
    const first = await world.api('GET', `/v1/calls/${call.id}/transcript?limit=1`);
    const cursor: string = first.body.next_cursor;
    const { call: other } = await world.ring();
    for (const [bad, path] of [
      ['garbage', call.id],
      [`${cursor.slice(0, -2)}xx`, call.id],
      [cursor, other.id],
    ] as const) {
      const res = await world.api('GET', `/v1/calls/${path}/transcript?cursor=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'cursor'], type: 'cursor_invalid' });
    }
  });
});
