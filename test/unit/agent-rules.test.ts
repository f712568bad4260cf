import { describe, expect, it } from 'vitest';
import { callingWindowProblems, HHMM } from '../../shared/policy/calling-window.js';
import { canonicalLanguageTag, isLanguageTag } from '../../shared/policy/language-tags.js';

describe('BCP 47 language tags', () => {
  it.each(['en', 'en-US', 'es-419', 'zh-Hant-TW', 'fr-CA', 'de-CH-1996'])('accepts %s', (tag) => {
    expect(isLanguageTag(tag)).toBe(true);
  });
  it.each(['', 'englishlanguage', 'en_US', 'e', 'en-', ' en', '123', 'en--US'])('refuses %j', (tag) => {
    expect(isLanguageTag(tag)).toBe(false);
  });
  it('canonicalises case', () => {
    expect(canonicalLanguageTag('en-us')).toBe('en-US');
    expect(canonicalLanguageTag('ZH-hant-tw')).toBe('zh-Hant-TW');
  });
});

describe('calling window', () => {
  it('accepts a window inside 08:00–21:00, including the legal bounds themselves', () => {
    expect(callingWindowProblems({ start: '08:00', end: '21:00' })).toEqual([]);
    expect(callingWindowProblems({ start: '09:30', end: '17:00' })).toEqual([]);
  });
  it('refuses a window that starts before 08:00 or ends after 21:00', () => {
    expect(callingWindowProblems({ start: '07:59', end: '20:00' })).toEqual([expect.objectContaining({ field: 'start', type: 'calling_window_too_wide' })]);
    expect(callingWindowProblems({ start: '09:00', end: '21:01' })).toEqual([expect.objectContaining({ field: 'end', type: 'calling_window_too_wide' })]);
  });
  it('refuses an empty or inverted window', () => {
    expect(callingWindowProblems({ start: '10:00', end: '10:00' })).toEqual([expect.objectContaining({ field: null, type: 'calling_window_empty' })]);
    expect(callingWindowProblems({ start: '18:00', end: '09:00' }).map((p) => p.type)).toEqual(['calling_window_empty']);
  });
  it('knows what HH:MM is', () => {
    expect(['00:00', '23:59', '08:05'].every((v) => HHMM.test(v))).toBe(true);
    expect(['24:00', '8:00', '08:60', '0800', '08:00:00'].some((v) => HHMM.test(v))).toBe(false);
  });
});
