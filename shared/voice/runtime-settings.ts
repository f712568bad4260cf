/**
 * The voice runtime's timing knobs, read from the environment by both hosts (documented in
 * the README's local-runtime section and docs/decisions.md):
 *   VOICE_FIRST_TOKEN_DEADLINE_MS — per model attempt: no first token by then → the next model
 *                                   of the route (default 2500; 200…30000);
 *   VOICE_FILLER_AFTER_MS         — a short filler phrase ("One moment…") when the reply has
 *                                   produced nothing speakable by then (default 1500; 0 = never; …30000).
 * Anything unparsable or out of range is the default. Pure given `env`.
 */
export const DEFAULT_FIRST_TOKEN_DEADLINE_MS = 2_500;
export const DEFAULT_FILLER_AFTER_MS = 1_500;

const wholeMs = (value: string | undefined, min: number, max: number, fallback: number): number => {
  if (value === undefined || !/^\d{1,6}$/.test(value.trim())) return fallback;
  const n = Number(value.trim());
  return n >= min && n <= max ? n : fallback;
};

export interface VoiceRuntimeSettings {
  firstTokenDeadlineMs: number;
  fillerAfterMs: number;
}

export function voiceRuntimeSettings(env: Readonly<Record<string, string | undefined>> = process.env): VoiceRuntimeSettings {
  return {
    firstTokenDeadlineMs: wholeMs(env.VOICE_FIRST_TOKEN_DEADLINE_MS, 200, 30_000, DEFAULT_FIRST_TOKEN_DEADLINE_MS),
    fillerAfterMs: wholeMs(env.VOICE_FILLER_AFTER_MS, 0, 30_000, DEFAULT_FILLER_AFTER_MS),
  };
}
