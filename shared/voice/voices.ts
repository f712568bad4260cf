/**
 * The stock voice catalogue: what an agent version's `stock_voice_id` sounds like in each
 * language, per text-to-speech provider ConversationRelay offers. Pure data and lookups.
 *
 * A stock voice id names a character ("aria": warm, female; "orion": calm, male; …), not a
 * provider voice, so a deployment can change providers without editing agents. Lookup order
 * for (provider, stock voice, language): the voice's entry for that exact language tag,
 * then for its primary language subtag ("es" for "es-MX"); otherwise — an unknown stock
 * voice id, or a language the voice has no entry for — the language's default voice on that
 * provider, and finally the provider's default voice. ElevenLabs voices are multilingual
 * (one voice id for every language); Google and Amazon voices are per language.
 */

export const TTS_PROVIDERS = ['ElevenLabs', 'Google', 'Amazon'] as const;
export type TtsProvider = (typeof TTS_PROVIDERS)[number];

/** A voice per language tag ("*" = every language). */
type ByLanguage = Readonly<Record<string, string>>;

/** The stock voices, by id. */
export const STOCK_VOICES: Readonly<Record<string, Readonly<Record<TtsProvider, ByLanguage>>>> = {
  aria: {
    ElevenLabs: { '*': '21m00Tcm4TlvDq8ikWAM' },
    Google: { 'en-US': 'en-US-Journey-F', 'en-GB': 'en-GB-Neural2-A', es: 'es-US-Neural2-A', fr: 'fr-FR-Neural2-A', de: 'de-DE-Neural2-A' },
    Amazon: { 'en-US': 'Joanna-Neural', 'en-GB': 'Amy-Neural', es: 'Lupe-Neural', fr: 'Lea-Neural', de: 'Vicki-Neural' },
  },
  orion: {
    ElevenLabs: { '*': 'pNInz6obpgDQGcFmaJgB' },
    Google: { 'en-US': 'en-US-Journey-D', 'en-GB': 'en-GB-Neural2-B', es: 'es-US-Neural2-B', fr: 'fr-FR-Neural2-B', de: 'de-DE-Neural2-B' },
    Amazon: { 'en-US': 'Matthew-Neural', 'en-GB': 'Brian-Neural', es: 'Pedro-Neural', fr: 'Remi-Neural', de: 'Daniel-Neural' },
  },
  alloy: {
    ElevenLabs: { '*': 'UgBBYS2sOqTuMpoF3BR0' },
    Google: { 'en-US': 'en-US-Journey-O', es: 'es-US-Neural2-A' },
    Amazon: { 'en-US': 'Ruth-Generative', es: 'Lupe-Neural' },
  },
};

/** Each language's default voice per provider (by tag, then primary subtag), and the provider's last resort ("*"). */
export const DEFAULT_VOICES: Readonly<Record<TtsProvider, ByLanguage>> = {
  ElevenLabs: { '*': 'UgBBYS2sOqTuMpoF3BR0' },
  Google: {
    'en-US': 'en-US-Journey-O',
    'en-GB': 'en-GB-Neural2-A',
    en: 'en-US-Journey-O',
    es: 'es-US-Neural2-A',
    fr: 'fr-FR-Neural2-A',
    de: 'de-DE-Neural2-A',
    '*': 'en-US-Journey-O',
  },
  Amazon: {
    'en-US': 'Joanna-Neural',
    'en-GB': 'Amy-Neural',
    en: 'Joanna-Neural',
    es: 'Lupe-Neural',
    fr: 'Lea-Neural',
    de: 'Vicki-Neural',
    '*': 'Joanna-Neural',
  },
};

const primary = (tag: string) => tag.split('-')[0]!.toLowerCase();

function pick(table: ByLanguage | undefined, language: string, wildcard: boolean): string | undefined {
  if (!table) return undefined;
  const exact = Object.keys(table).find((k) => k.toLowerCase() === language.toLowerCase());
  if (exact) return table[exact];
  if (table[primary(language)]) return table[primary(language)];
  return wildcard ? table['*'] : undefined;
}

/** The provider voice for a stock voice id in a language (see the lookup order above). */
export function providerVoice(provider: TtsProvider, stockVoiceId: string | null | undefined, language: string): string {
  const stock = stockVoiceId && Object.hasOwn(STOCK_VOICES, stockVoiceId) ? STOCK_VOICES[stockVoiceId]![provider] : undefined;
  return pick(stock, language, true) ?? pick(DEFAULT_VOICES[provider], language, true)!;
}
