import { describe, expect, it } from 'vitest';
import { DEFAULT_FILLER_AFTER_MS, DEFAULT_FIRST_TOKEN_DEADLINE_MS, voiceRuntimeSettings } from '../../shared/voice/runtime-settings.js';

describe('voiceRuntimeSettings', () => {
  it('reads whole milliseconds in range; anything else is the default', () => {
    expect(voiceRuntimeSettings({})).toEqual({ firstTokenDeadlineMs: DEFAULT_FIRST_TOKEN_DEADLINE_MS, fillerAfterMs: DEFAULT_FILLER_AFTER_MS });
    expect(voiceRuntimeSettings({ VOICE_FIRST_TOKEN_DEADLINE_MS: ' 800 ', VOICE_FILLER_AFTER_MS: '0' })).toEqual({
      firstTokenDeadlineMs: 800,
      fillerAfterMs: 0,
    });
    for (const bad of ['', 'abc', '1.5', '-1', '199', '30001', '1e3']) {
      expect(voiceRuntimeSettings({ VOICE_FIRST_TOKEN_DEADLINE_MS: bad }).firstTokenDeadlineMs, bad).toBe(DEFAULT_FIRST_TOKEN_DEADLINE_MS);
    }
    expect(voiceRuntimeSettings({ VOICE_FILLER_AFTER_MS: '30001' }).fillerAfterMs).toBe(DEFAULT_FILLER_AFTER_MS);
  });
});
