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

/** A break that may end a phrase, once whitespace follows it (the union of pushText's rules). */
const BREAK_THEN_SPACE = /[.?!…,;:—–]["'”’)\]]*\s/;
/** Characters of text already handed over that a break could still sit in (a break and its closing quotes). */
const TAIL_CHARS = 8;

/**
 * For a host that feeds model text to the core: true when `pending` may complete a phrase
 * (a break followed by whitespace, counting the end of what was handed over before, or enough
 * text since the last break for the PHRASE_MAX_CHARS cut), so deltas that can only grow the
 * core's buffer are held back. It never says no when the core would cut a phrase (it counts
 * the text since a break generously), so feeding through it sends every phrase at the same
 * delta as feeding every delta; it saves a step, and its state copy, per token.
 */
export function phraseReady(): (pending: string) => boolean {
  let tail = '';
  let sinceBreak = 0;
  return (pending) => {
    const byBreak = BREAK_THEN_SPACE.test(tail + pending);
    if (!byBreak && sinceBreak + pending.length < PHRASE_MAX_CHARS) return false;
    tail = (tail + pending).slice(-TAIL_CHARS);
    sinceBreak = byBreak ? pending.length : sinceBreak + pending.length;
    return true;
  };
}
