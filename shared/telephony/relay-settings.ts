/**
 * ConversationRelay's speech settings: deployment settings read from the environment, each
 * with a documented default (Twilio's own defaults at the time of writing).
 *   VOICE_TTS_PROVIDER            ElevenLabs | Google | Amazon   (default ElevenLabs)
 *   VOICE_TRANSCRIPTION_PROVIDER  Deepgram | Google              (default Deepgram)
 *   VOICE_SPEECH_MODEL            the transcription model        (default nova-3-general; Google: telephony)
 * An unknown provider name falls back to the default rather than failing every call.
 */
import { TTS_PROVIDERS, type TtsProvider } from '../voice/voices.js';

export const TRANSCRIPTION_PROVIDERS = ['Deepgram', 'Google'] as const;
export type TranscriptionProvider = (typeof TRANSCRIPTION_PROVIDERS)[number];

export interface RelaySpeechSettings {
  ttsProvider: TtsProvider;
  transcriptionProvider: TranscriptionProvider;
  speechModel: string;
}

const DEFAULT_SPEECH_MODEL: Record<TranscriptionProvider, string> = { Deepgram: 'nova-3-general', Google: 'telephony' };
const SPEECH_MODEL = /^[A-Za-z0-9_.-]{1,64}$/;

const oneOf = <T extends string>(values: readonly T[], raw: string | undefined, fallback: T): T =>
  values.find((v) => v.toLowerCase() === raw?.trim().toLowerCase()) ?? fallback;

export function relaySpeechSettings(env: Record<string, string | undefined> = process.env): RelaySpeechSettings {
  const transcriptionProvider = oneOf(TRANSCRIPTION_PROVIDERS, env.VOICE_TRANSCRIPTION_PROVIDER, 'Deepgram');
  const model = env.VOICE_SPEECH_MODEL?.trim();
  return {
    ttsProvider: oneOf(TTS_PROVIDERS, env.VOICE_TTS_PROVIDER, 'ElevenLabs'),
    transcriptionProvider,
    speechModel: model && SPEECH_MODEL.test(model) ? model : DEFAULT_SPEECH_MODEL[transcriptionProvider],
  };
}
