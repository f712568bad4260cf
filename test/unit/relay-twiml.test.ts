import { describe, expect, it } from 'vitest';
import { readTwiml } from '../../shared/sandbox/twiml-reader.js';
import { verifyRelayActionParams, verifyStreamToken } from '../../shared/telephony/call-tokens.js';
import { relaySpeechSettings } from '../../shared/telephony/relay-settings.js';
import { RECONNECT_GREETING, type RelayInput, relayTwiml } from '../../shared/telephony/relay-twiml.js';
import { disclosureGreeting } from '../../shared/voice/greeting.js';
import { DEFAULT_VOICES, providerVoice, STOCK_VOICES } from '../../shared/voice/voices.js';

const key = 'k'.repeat(32);
const at = new Date('2026-11-24T12:00:00Z');
const claims = { tenant_id: 'ten_1', call_id: 'cal_1', agent_version_id: 'agv_1', number_id: 'pn_1' };
const agent = {
  disclosure_config: { business_name: 'Acme Dental' },
  conversation_settings: { default_language: 'es-MX', supported_languages: ['en-US', 'es-MX'], allow_language_switch: true },
  stock_voice_id: 'aria',
};
const input: RelayInput = { claims, agent, key, at, relayUrl: 'wss://api.test/runtime/v1/relay', baseUrl: 'https://api.test', speech: relaySpeechSettings({}) };

const relayOf = (xml: string) => {
  const [connect, ...rest] = readTwiml(xml);
  expect(rest).toEqual([]);
  if (connect?.verb !== 'Connect') throw new Error('not a Connect');
  return connect;
};

describe('the stock voice catalogue', () => {
  it('maps a stock voice per provider and language: exact tag, then the primary subtag', () => {
    expect(providerVoice('Google', 'aria', 'en-GB')).toBe(STOCK_VOICES.aria!.Google['en-GB']);
    expect(providerVoice('Google', 'aria', 'es-MX')).toBe(STOCK_VOICES.aria!.Google.es);
    expect(providerVoice('Amazon', 'orion', 'fr-CA')).toBe('Remi-Neural');
    // ElevenLabs voices are multilingual: one id for every language.
    expect(providerVoice('ElevenLabs', 'orion', 'de-DE')).toBe(STOCK_VOICES.orion!.ElevenLabs['*']);
  });

  it("falls back to the language's default voice for an unknown stock voice or a language the voice lacks, then the provider's", () => {
    expect(providerVoice('Google', 'no-such-voice', 'fr-FR')).toBe(DEFAULT_VOICES.Google.fr);
    expect(providerVoice('Google', null, 'en-US')).toBe(DEFAULT_VOICES.Google['en-US']);
    expect(providerVoice('Google', 'alloy', 'de-DE')).toBe(DEFAULT_VOICES.Google.de);
    expect(providerVoice('Amazon', 'alloy', 'ja-JP')).toBe(DEFAULT_VOICES.Amazon['*']);
    expect(providerVoice('Amazon', 'toString', 'en-US')).toBe(DEFAULT_VOICES.Amazon['en-US']);
  });
});

describe('relay speech settings', () => {
  it('defaults, case-insensitive provider names, the model per transcription provider, and garbage ignored', () => {
    expect(relaySpeechSettings({})).toEqual({ ttsProvider: 'ElevenLabs', transcriptionProvider: 'Deepgram', speechModel: 'nova-3-general' });
    expect(relaySpeechSettings({ VOICE_TTS_PROVIDER: 'google', VOICE_TRANSCRIPTION_PROVIDER: 'Google' })).toEqual({
      ttsProvider: 'Google',
      transcriptionProvider: 'Google',
      speechModel: 'telephony',
    });
    expect(relaySpeechSettings({ VOICE_TTS_PROVIDER: 'Nope', VOICE_SPEECH_MODEL: 'nova-2-phonecall' })).toEqual({
      ttsProvider: 'ElevenLabs',
      transcriptionProvider: 'Deepgram',
      speechModel: 'nova-2-phonecall',
    });
    expect(relaySpeechSettings({ VOICE_SPEECH_MODEL: 'bad model"' }).speechModel).toBe('nova-3-general');
  });
});

describe('the relay TwiML', () => {
  it('connects to the relay URL with the signed token in the query and as a parameter, greets with the disclosure, one language per supported one', () => {
    const xml = relayTwiml(input);
    const relay = relayOf(xml);
    const url = new URL(relay.relayUrl!);
    expect(`${url.origin}${url.pathname}`).toBe('wss://api.test/runtime/v1/relay');
    const token = url.searchParams.get('token')!;
    expect(relay.parameters).toEqual({ token });
    expect(verifyStreamToken(key, token, at)).toMatchObject({ ok: true, claims });
    expect(xml).toContain(
      `welcomeGreeting="${disclosureGreeting(agent)}" welcomeGreetingInterruptible="none" language="es-MX" voice="${STOCK_VOICES.aria!.ElevenLabs['*']}" ttsProvider="ElevenLabs" transcriptionProvider="Deepgram" speechModel="nova-3-general" interruptible="any" dtmfDetection="true"`,
    );
    expect(xml.match(/<Language /g)).toHaveLength(2);
    expect(xml).toContain('<Language code="en-US"');
    // The action URL's state is ours: the same claims, no reconnect yet.
    const action = new URL(relay.action!);
    expect(action.pathname).toBe('/carrier/twilio/relay-action');
    expect(verifyRelayActionParams(key, action.searchParams, at)).toMatchObject({ ok: true, claims: { ...claims, reconnects: 0 } });
  });

  it('a reconnect apologises instead of repeating the opener and carries its count; a policy version rides in the token and the action', () => {
    const xml = relayTwiml({ ...input, claims: { ...claims, policy_version: 4 }, reconnects: 2 });
    const relay = relayOf(xml);
    expect(xml).toContain(`welcomeGreeting="${RECONNECT_GREETING}"`);
    expect(xml).not.toContain('Acme Dental');
    expect(verifyRelayActionParams(key, new URL(relay.action!).searchParams, at)).toMatchObject({
      ok: true,
      claims: { ...claims, policy_version: 4, reconnects: 2 },
    });
    expect(verifyStreamToken(key, relay.parameters.token!, at)).toMatchObject({ ok: true, claims: { policy_version: 4 } });
  });

  it('a version without conversation settings speaks en-US with the default voice; the provider voice follows the deployment setting', () => {
    const xml = relayTwiml({
      ...input,
      agent: { disclosure_config: { business_name: 'X' }, conversation_settings: undefined as never, stock_voice_id: null },
      speech: relaySpeechSettings({ VOICE_TTS_PROVIDER: 'Amazon' }),
    });
    expect(xml).toContain('language="en-US" voice="Joanna-Neural" ttsProvider="Amazon"');
    expect(xml).toContain('<Language code="en-US" voice="Joanna-Neural" ttsProvider="Amazon"/>');
  });
});

describe('the relay action URL', () => {
  const sign = (reconnects: number) => new URL(relayOf(relayTwiml({ ...input, reconnects })).action!).searchParams;

  it('refuses a tampered reconnect count, a foreign key, a missing field; expires with the stream token', () => {
    const params = sign(1);
    params.set('reconnects', '0');
    expect(verifyRelayActionParams(key, params, at)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyRelayActionParams('o'.repeat(32), sign(1), at)).toEqual({ ok: false, reason: 'bad_signature' });
    const missing = sign(0);
    missing.delete('call_id');
    expect(verifyRelayActionParams(key, missing, at)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyRelayActionParams(key, sign(0), new Date(at.getTime() + 4 * 3600 * 1000))).toEqual({ ok: false, reason: 'expired' });
  });
});
