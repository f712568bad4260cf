/**
 * What an agent made from a template starts with, so it can hold a conversation and leave a
 * voicemail before the tenant writes any text: a dialogue policy and a voicemail-drop body
 * for each of its supported languages that the runtime speaks (en, es, fr, de, pt, it — the
 * languages of shared/voice/phrases.ts). The tenant edits them like any draft field.
 *
 * The voicemail's callback number cannot be invented: it is seeded from
 * `disclosure_config.callback_number` when that is an E.164 number, else there is no drop
 * (the runtime's voicemail then says the opener and a closing without a number).
 */
import { CONTACT_PHONE } from '../schemas/phone.js';

interface LanguageSeed {
  /** The language's English name, for the model. */
  speak: string;
  /** How to address the contact in that language. */
  register: string;
  /** The voicemail body, in that language. */
  voicemail: string;
}

const SEEDS: Readonly<Record<string, LanguageSeed>> = {
  en: {
    speak: 'English',
    register: 'Plain, warm and brief; first names only if the contact offers theirs.',
    voicemail: 'We were calling with a message for you.',
  },
  es: { speak: 'Spanish', register: 'Address the contact as usted.', voicemail: 'Le llamábamos para darle un mensaje.' },
  fr: { speak: 'French', register: 'Address the contact as vous.', voicemail: 'Nous vous appelions pour vous transmettre un message.' },
  de: { speak: 'German', register: 'Address the contact as Sie.', voicemail: 'Wir haben Sie angerufen, um Ihnen eine Nachricht zu überbringen.' },
  pt: { speak: 'Portuguese', register: 'Address the contact formally (o senhor / a senhora).', voicemail: 'Estávamos a ligar para lhe deixar uma mensagem.' },
  it: { speak: 'Italian', register: 'Address the contact as Lei.', voicemail: 'La stavamo chiamando per lasciarle un messaggio.' },
};

const seedFor = (tag: string): LanguageSeed | undefined => SEEDS[tag.toLowerCase().split('-')[0]!];

/** A dialogue policy entry per supported language the runtime speaks, keyed by the agent's own tags. */
export function seededDialoguePolicy(languages: readonly string[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const tag of languages) {
    const seed = seedFor(tag);
    if (!seed) continue;
    out[tag] = {
      speak: `${seed.speak} (${tag}) only, unless the contact switches and switching is allowed`,
      register: seed.register,
      when_unsure: 'Say you will have someone follow up rather than guess.',
      closing: 'Thank the contact and say goodbye briefly.',
    };
  }
  return out;
}

/** The voicemail drop: a body per supported language the runtime speaks, and the disclosure's callback number; null without one. */
export function seededVoicemailDrop(
  languages: readonly string[],
  disclosure: Record<string, unknown>,
): { body: Record<string, string>; callback_number: string } | null {
  const number = disclosure.callback_number;
  if (typeof number !== 'string' || !CONTACT_PHONE.test(number)) return null;
  const body = Object.fromEntries(languages.flatMap((tag) => (seedFor(tag) ? [[tag, seedFor(tag)!.voicemail]] : [])));
  return Object.keys(body).length ? { body, callback_number: number } : null;
}
