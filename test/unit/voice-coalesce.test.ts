import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { CLAUSE_MIN_CHARS, PHRASE_MAX_CHARS, phraseReady, pushText } from '../../shared/voice/core/coalesce.js';

/** Feeds deltas one by one; returns the phrases in order and the rest. */
function feed(deltas: string[]) {
  let buffer = '';
  const phrases: string[] = [];
  for (const d of deltas) {
    const r = pushText(buffer, d);
    phrases.push(...r.phrases);
    buffer = r.buffer;
  }
  return { phrases, buffer };
}

const tokens = (text: string) => text.match(/\S+|\s+/g) ?? [];

describe('pushText', () => {
  it('flushes at sentence ends, not per token, and loses nothing', () => {
    const text = 'Hello there! How are you today? I can help with that. ';
    const { phrases, buffer } = feed(tokens(text));
    expect(phrases).toEqual(['Hello there!', ' How are you today?', ' I can help with that.']);
    expect(phrases.join('') + buffer).toBe(text);
  });

  it('waits for what follows a full stop (a decimal is not a sentence end)', () => {
    expect(feed(['It costs 3.', '5 dollars'])).toEqual({ phrases: [], buffer: 'It costs 3.5 dollars' });
    expect(feed(['Done.'])).toEqual({ phrases: [], buffer: 'Done.' });
  });

  it('breaks at a clause only once the phrase is long enough', () => {
    expect(feed(tokens('Yes, of course ')).phrases).toEqual([]);
    const long = 'Thank you for calling the clinic this morning, I have a few questions ';
    const { phrases } = feed(tokens(long));
    expect(phrases).toEqual(['Thank you for calling the clinic this morning,']);
    expect(phrases[0]!.length).toBeGreaterThanOrEqual(CLAUSE_MIN_CHARS);
  });

  it('cuts a run-on at a space before the maximum, or hard when there is none', () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const { phrases, buffer } = feed(tokens(words));
    expect(phrases.length).toBeGreaterThan(0);
    for (const p of phrases) expect(p.length).toBeLessThanOrEqual(PHRASE_MAX_CHARS);
    expect(phrases.join('') + buffer).toBe(words);
    const blob = 'x'.repeat(450);
    const cut = feed([blob]);
    expect(cut.phrases).toEqual(['x'.repeat(200), 'x'.repeat(200)]);
    expect(cut.buffer).toBe('x'.repeat(50));
  });

  it('never yields a blank phrase', () => {
    const { phrases } = feed(['  ', '. ', '!! ', 'Ok. ', ' ']);
    for (const p of phrases) expect(p.trim()).not.toBe('');
  });
});

describe('phraseReady (a host holding back deltas that cannot complete a phrase)', () => {
  /** Deltas held while phraseReady says no, handed over together when it says yes: each phrase with the index of the delta it was sent at. */
  function held(deltas: string[]) {
    const ready = phraseReady();
    let buffer = '';
    let pending = '';
    const sent: { phrase: string; at: number }[] = [];
    deltas.forEach((d, i) => {
      pending += d;
      if (!ready(pending)) return;
      const r = pushText(buffer, pending);
      pending = '';
      buffer = r.buffer;
      for (const phrase of r.phrases) sent.push({ phrase, at: i });
    });
    return sent;
  }
  function perDelta(deltas: string[]) {
    let buffer = '';
    const sent: { phrase: string; at: number }[] = [];
    deltas.forEach((d, i) => {
      const r = pushText(buffer, d);
      buffer = r.buffer;
      for (const phrase of r.phrases) sent.push({ phrase, at: i });
    });
    return sent;
  }
  const piece = fc.oneof(
    fc.constantFrom('.', ',', '!', '?', ';', ':', '—', '"', ')', ' ', '  ', '\n', 'Hello', 'there', 'x', "I'm", '…'),
    fc.string({ maxLength: 12 }),
    fc.string({ unit: fc.constantFrom('a', 'b', ' '), minLength: 20, maxLength: 90 }),
  );

  test.prop([fc.array(piece, { maxLength: 120 })], { numRuns: 500 })('sends the same phrases, each at the same delta, as feeding every delta', (deltas) => {
    expect(held(deltas)).toEqual(perDelta(deltas));
  });

  it('a phrase that reaches PHRASE_MAX_CHARS by the whitespace a cut left behind is sent at the same delta', () => {
    // Found by the property above: counting only the text since the break missed the space after ".", one character short.
    const a = (n: number) => 'a'.repeat(n);
    const deltas = ['.', ' ', 'Hello', a(25), a(43), a(46), a(34), '  ', a(44)];
    expect(perDelta(deltas).map((p) => p.at)).toEqual([1, 8]);
    expect(held(deltas)).toEqual(perDelta(deltas));
  });

  it('holds back the tokens inside a phrase', () => {
    const deltas = tokens('Sure, I can book you for Tuesday at ten in the morning. Does that work for you? ');
    const ready = phraseReady();
    let pending = '';
    let feeds = 0;
    for (const d of deltas) {
      pending += d;
      if (ready(pending)) {
        feeds++;
        pending = '';
      }
    }
    expect(feeds).toBeLessThan(deltas.length / 3);
  });
});
