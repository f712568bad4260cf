import { describe, expect, it } from 'vitest';
import { pageTurns, presentTurn } from '../../shared/calls/transcript.js';
import { encodeCursor } from '../../shared/pagination/cursor.js';
import type { StoredTurn } from '../../shared/repositories/runtime-events.js';

const cursorKey = 'c'.repeat(32);
const base = { cursorKey, tenantId: 'ten_1', callId: 'cal_1' };
const turn = (seq: number, speaker: 'agent' | 'contact', extra: Partial<StoredTurn['turn']> = {}): StoredTurn => ({
  seq,
  turn: { id: `e${seq}`, type: 'turn', at: `2026-11-24T12:00:${String(seq).padStart(2, '0')}.000Z`, speaker, text: `t${seq}`, ...extra },
});
const turns = [
  turn(1, 'agent'),
  turn(3, 'contact', { latency_ms: 9 }),
  turn(4, 'agent', { latency_ms: 500, interrupted: true, model: 'm' }),
  turn(7, 'contact'),
  turn(9, 'agent', { interrupted: false }),
];

describe('a transcript page', () => {
  it('presents a turn: latency for agent turns only, interrupted a boolean, model nullable, passage ids a list', () => {
    expect(presentTurn(turns[1]!)).toEqual({
      speaker: 'contact',
      text: 't3',
      started_at: '2026-11-24T12:00:03.000Z',
      latency_ms: null,
      interrupted: false,
      model: null,
      passage_ids: [],
    });
    expect(presentTurn(turns[2]!)).toEqual({
      speaker: 'agent',
      text: 't4',
      started_at: '2026-11-24T12:00:04.000Z',
      latency_ms: 500,
      interrupted: true,
      model: 'm',
      passage_ids: [],
    });
  });

  it('pages by seq with a signed cursor until the turns run out', () => {
    const first = pageTurns(turns, { ...base, limit: 2 });
    expect(first.data.map((t) => t.text)).toEqual(['t1', 't3']);
    expect(first.has_more).toBe(true);
    const second = pageTurns(turns, { ...base, limit: 2, cursor: first.next_cursor! });
    expect(second.data.map((t) => t.text)).toEqual(['t4', 't7']);
    const last = pageTurns(turns, { ...base, limit: 2, cursor: second.next_cursor! });
    expect(last).toMatchObject({ has_more: false, next_cursor: null });
    expect(last.data.map((t) => t.text)).toEqual(['t9']);
    expect(pageTurns(turns, { ...base, limit: 5 })).toMatchObject({ has_more: false, next_cursor: null });
  });

  it("refuses another call's, another tenant's or a keyless cursor as 422 at query.cursor", () => {
    const { next_cursor } = pageTurns(turns, { ...base, limit: 1 });
    const refused = (cursor: string, opts = base) => {
      try {
        pageTurns(turns, { ...opts, limit: 1, cursor });
      } catch (err) {
        return (err as { issues?: { loc: unknown[] }[] }).issues?.[0]?.loc;
      }
      return 'accepted';
    };
    expect(refused(next_cursor!, { ...base, callId: 'cal_2' })).toEqual(['query', 'cursor']);
    expect(refused(next_cursor!, { ...base, tenantId: 'ten_2' })).toEqual(['query', 'cursor']);
    expect(refused(encodeCursor(cursorKey, 'ten_1', 'callTranscript:cal_1', { pk: 'x' }))).toEqual(['query', 'cursor']);
    expect(refused(next_cursor!)).toBe('accepted');
  });
});
