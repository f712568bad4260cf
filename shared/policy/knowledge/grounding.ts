/**
 * The embedded grounding checker, pure and lexical: is each factual claim of an agent turn
 * that used the pack supported by the passages that turn cited?
 *
 * A claim is a sentence of such a turn that states something checkable: a number (prices,
 * times, quantities, phone-free figures), a date word (month or weekday) or a name (a
 * capitalised word that does not open the sentence). A claim is supported when every one of
 * those tokens appears in the cited passages (numbers compared as numbers: "$49.00" = "49";
 * words case-insensitively). A sentence with none of them is not counted as a claim.
 *
 * Limits, honestly: it cannot see paraphrase ("noon" vs "12"), negation ("we are NOT open
 * on Sunday" passes against a passage that names Sunday), or a claim made of common words
 * only ("we offer free parking" is not checked); it can flag a name the agent used politely
 * (the contact's own name) when the passage does not hold it. An LLM judge behind the same
 * port (shared/knowledge/grounding.ts) covers those at the price of a model call.
 */

export interface GroundedTurn {
  turn_index: number;
  text: string;
  passage_ids: readonly string[];
}

interface UnsupportedClaim {
  turn_index: number;
  text: string;
  passage_ids: string[];
  /** The tokens of the claim that no cited passage holds. */
  missing: string[];
}

export interface GroundingResult {
  claims_checked: number;
  unsupported: UnsupportedClaim[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const DATE_WORDS = new Set([...MONTHS, ...DAYS, ...MONTHS.map((m) => m.slice(0, 3)), ...DAYS.map((d) => d.slice(0, 3))]);
// "May" and short forms are dates only when capitalised; "I", greetings and fillers are never names.
const NOT_NAMES = new Set([
  'i',
  "i'm",
  "i'll",
  "i've",
  "i'd",
  'ok',
  'okay',
  'yes',
  'no',
  'sorry',
  'thanks',
  'thank',
  'hello',
  'hi',
  'goodbye',
  'great',
  'sure',
  'please',
  'utc',
  'am',
  'pm',
]);

const NUMBER = /\d+(?:[.,:]\d+)*/g;

/** "1,200" → "1200", "49.00" → "49", "9:30" → "9:30": numbers compared by value, times as written. */
export function normaliseNumber(raw: string): string {
  if (raw.includes(':')) return raw.replace(/^0+(?=\d)/, '');
  const plain = /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(raw) ? raw.replace(/,/g, '') : raw.replace(/,/g, '.');
  const n = Number(plain);
  return Number.isFinite(n) ? String(n) : plain;
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}][\p{L}'’-]*/gu) ?? [];

/** The checkable tokens of a sentence: numbers, date words, names. */
export function checkableTokens(sentence: string): string[] {
  const tokens = new Set<string>();
  for (const m of sentence.match(NUMBER) ?? []) tokens.add(normaliseNumber(m.replace(/[.,:]+$/, '')));
  const raw = sentence.match(/[\p{L}][\p{L}'’-]*/gu) ?? [];
  raw.forEach((w, i) => {
    const lower = w.toLowerCase();
    if (DATE_WORDS.has(lower) && (lower.length > 3 || /^\p{Lu}/u.test(w))) {
      if (lower !== 'may' || /^\p{Lu}/u.test(w)) tokens.add(lower.slice(0, 3));
      return;
    }
    if (i > 0 && /^\p{Lu}/u.test(w) && !NOT_NAMES.has(lower)) tokens.add(lower);
  });
  return [...tokens];
}

/** Sentences of a turn (a claim is one sentence). */
const sentencesOf = (text: string): string[] => (text.match(/[^.!?]+(?:[.!?]+(?=\s|$)|$)/g) ?? []).map((s) => s.trim()).filter(Boolean);

/** What a passage offers to support claims: its numbers and words (date words also by their first three letters). */
function supportOf(texts: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const t of texts) {
    for (const m of t.match(NUMBER) ?? []) {
      const n = m.replace(/[.,:]+$/, '');
      out.add(normaliseNumber(n));
      // "9:00" in a passage supports "9" in a claim ("open at 9").
      if (n.includes(':')) out.add(normaliseNumber(n.split(':')[0]!));
    }
    for (const w of words(t)) {
      out.add(w);
      if (DATE_WORDS.has(w)) out.add(w.slice(0, 3));
    }
  }
  return out;
}

/**
 * Checks every claim of every turn against the passages that turn cited. A cited id the
 * version does not hold supports nothing (a runtime cannot cite its way to a pass).
 * `known`: text the agent was configured with and may always say (the business name, its
 * disclosure), so naming the business is not an ungrounded claim.
 */
export function checkGrounding(turns: readonly GroundedTurn[], passages: ReadonlyMap<string, string>, known: readonly string[] = []): GroundingResult {
  let checked = 0;
  const unsupported: UnsupportedClaim[] = [];
  for (const turn of turns) {
    if (!turn.passage_ids.length) continue;
    const support = supportOf([...known, ...turn.passage_ids.map((id) => passages.get(id)).filter((t): t is string => t !== undefined)]);
    for (const sentence of sentencesOf(turn.text)) {
      const tokens = checkableTokens(sentence);
      if (!tokens.length) continue;
      checked++;
      const missing = tokens.filter((t) => !support.has(t));
      if (missing.length) unsupported.push({ turn_index: turn.turn_index, text: sentence, passage_ids: [...turn.passage_ids], missing });
    }
  }
  return { claims_checked: checked, unsupported };
}
