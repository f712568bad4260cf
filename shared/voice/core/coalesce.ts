/**
 * Text coalescing for ConversationRelay: model tokens are buffered and sent as phrases, so
 * the text-to-speech engine gets whole clauses (better prosody, fewer frames) rather than
 * one frame per token. Pure; the buffer lives in the session state.
 *
 * A phrase ends at a sentence end (. ? ! … followed by a space), at a clause break (, ; : —
 * followed by a space) once it is at least CLAUSE_MIN_CHARS long, or, failing both, at the
 * last space before PHRASE_MAX_CHARS (a hard cut when there is none). Whitespace after a
 * break stays with the next phrase, so the phrases concatenate to exactly the model's text.
 */
export const CLAUSE_MIN_CHARS = 40;
export const PHRASE_MAX_CHARS = 200;

const SENTENCE_END = /[.?!…]+["'”’)\]]*(?=\s)/g;
const CLAUSE_BREAK = /[,;:—–]+(?=\s)/g;

/** The end index of the first phrase in `text`, or null when it has no complete phrase yet. */
function firstBreak(text: string): number | null {
  for (const m of text.matchAll(SENTENCE_END)) {
    const end = m.index + m[0].length;
    if (text.slice(0, end).trim()) return end;
  }
  for (const m of text.matchAll(CLAUSE_BREAK)) {
    const end = m.index + m[0].length;
    if (end >= CLAUSE_MIN_CHARS) return end;
  }
  if (text.length < PHRASE_MAX_CHARS) return null;
  const space = text.lastIndexOf(' ', PHRASE_MAX_CHARS);
  return space > 0 && text.slice(0, space).trim() ? space : PHRASE_MAX_CHARS;
}

/** Adds a delta to the buffer; returns the complete phrases (never blank) and what stays buffered. */
export function pushText(buffer: string, delta: string): { phrases: string[]; buffer: string } {
  let rest = buffer + delta;
  const phrases: string[] = [];
  for (let cut = firstBreak(rest); cut !== null; cut = firstBreak(rest)) {
    phrases.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return { phrases, buffer: rest };
}

/**
 * For a host that feeds model text to the core: true when `pending` completes a phrase, so
 * deltas that can only grow the core's buffer are held back. It keeps its own copy of that
 * buffer (what pushText left of the text it let through), so it says yes exactly when the core
 * would cut a phrase: feeding through it sends every phrase at the same delta as feeding every
 * delta, and saves a step, and its state copy, per token. (Counting characters since the last
 * break instead missed the whitespace a cut leaves in the buffer, and held back a phrase that
 * reached PHRASE_MAX_CHARS by one character.) Text the host hands over outside it (the flush
 * before a tool, after which the core empties its buffer) can only make it say yes early, never late.
 */
export function phraseReady(): (pending: string) => boolean {
  let buffer = '';
  return (pending) => {
    const pushed = pushText(buffer, pending);
    if (pushed.phrases.length === 0) return false;
    buffer = pushed.buffer;
    return true;
  };
}
