/**
 * The string builders every text field is made from, so what a field may hold is decided
 * once. A text field refuses characters that would be stored and shown as something other
 * than what a reader sees: C0 and C1 control characters (NUL, BEL, ESC, DEL, …) and the
 * bidirectional embedding, override and isolate characters (U+202A–U+202E, U+2066–U+2069)
 * that reorder how the rest of a name or URL displays. A multi-line field keeps line feed
 * and tab; nothing else in those ranges. The 422 names the field, type
 * `value_error.control_character`.
 *
 * A field that trims stores the trimmed value: the schema's output is what was validated
 * and what is kept.
 */
import * as z from 'zod';

const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export const CONTROL_CHARACTER_TYPE = 'value_error.control_character';

/** The first character a text field may not hold, as U+XXXX with its position; undefined if none. */
export function forbiddenCharacter(text: string, multiLine = false): { codePoint: string; index: number } | undefined {
  const match = (multiLine ? MULTI_LINE_FORBIDDEN : SINGLE_LINE_FORBIDDEN).exec(text);
  if (!match) return undefined;
  return { codePoint: `U+${match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, index: match.index };
}

export const controlCharacterMessage = (found: { codePoint: string; index: number }, multiLine = false) =>
  `Text must not contain control characters${multiLine ? ' other than line feed and tab' : ''} or bidirectional override characters (${found.codePoint} at position ${found.index})`;

interface TextOptions {
  min?: number;
  max?: number;
  /** Remove leading and trailing whitespace before the other checks; the trimmed text is stored. */
  trim?: boolean;
}

function text(multiLine: boolean, opts: TextOptions): z.ZodString {
  let s = z.string();
  if (opts.trim) s = s.trim();
  if (opts.min !== undefined) s = s.min(opts.min);
  if (opts.max !== undefined) s = s.max(opts.max);
  return s.superRefine((value, ctx) => {
    const found = forbiddenCharacter(value, multiLine);
    if (found) ctx.addIssue({ code: 'custom', message: controlCharacterMessage(found, multiLine), input: value, params: { type: CONTROL_CHARACTER_TYPE } });
  });
}

/** A name, title, URL, reference or any other one-line text. */
export const singleLineText = (opts: TextOptions = {}): z.ZodString => text(false, opts);

/** A note, prompt, greeting, message body or any text that may span lines (line feed and tab allowed). */
export const multiLineText = (opts: TextOptions = {}): z.ZodString => text(true, opts);
