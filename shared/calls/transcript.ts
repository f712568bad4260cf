/**
 * A call's transcript: its turn events in the order the runtime reported them, cursor-paged
 * (the API conventions). The turns are read whole (a call holds at most MAX_EVENTS_PER_CALL
 * events) and paged by `seq`; the cursor carries the last seq returned, signed and bound to
 * the tenant and the call like every other cursor.
 */
import { invalid } from '../errors.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../pagination/cursor.js';
import type { Page } from '../pagination/page.js';
import { callTurns, type StoredTurn } from '../repositories/runtime-events.js';
import type { TranscriptTurn } from '../schemas/call-detail.js';
import { appSecrets } from '../secrets.js';

export const presentTurn = ({ turn }: StoredTurn): TranscriptTurn => ({
  speaker: turn.speaker,
  text: turn.text,
  started_at: turn.at,
  latency_ms: turn.speaker === 'agent' ? (turn.latency_ms ?? null) : null,
  interrupted: turn.interrupted === true,
  model: turn.model ?? null,
  passage_ids: turn.speaker === 'agent' ? [...(turn.passage_ids ?? [])] : [],
});

/** The page of `turns` (sorted by seq) after the cursor's seq. Pure but for the cursor key. */
export function pageTurns(
  turns: readonly StoredTurn[],
  opts: { cursorKey: string; tenantId: string; callId: string; limit: number; cursor?: string },
): Page<TranscriptTurn> {
  const scope = `callTranscript:${opts.callId}`;
  let after = -1;
  if (opts.cursor) {
    let key: Record<string, string | number>;
    try {
      key = decodeCursor(opts.cursorKey, opts.tenantId, scope, opts.cursor);
    } catch (err) {
      if (err instanceof InvalidCursor) throw invalid(['query', 'cursor'], 'Invalid cursor: it was not issued for this query', 'cursor_invalid', opts.cursor);
      throw err;
    }
    if (typeof key.seq !== 'number' || !Number.isInteger(key.seq))
      throw invalid(['query', 'cursor'], 'Invalid cursor: it was not issued for this query', 'cursor_invalid', opts.cursor);
    after = key.seq;
  }
  const rest = turns.filter((t) => t.seq > after);
  const page = rest.slice(0, opts.limit);
  const hasMore = rest.length > page.length;
  const last = page.at(-1);
  return {
    data: page.map(presentTurn),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(opts.cursorKey, opts.tenantId, scope, { seq: last.seq }) : null,
  };
}

export async function callTranscript(tenantId: string, callId: string, query: { limit: number; cursor?: string }): Promise<Page<TranscriptTurn>> {
  const [{ cursorKey }, turns] = await Promise.all([appSecrets(), callTurns(tenantId, callId)]);
  return pageTurns(turns, { cursorKey, tenantId, callId, limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) });
}
