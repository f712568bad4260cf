/**
 * The TwiML that hands an answered call to the voice runtime through ConversationRelay
 * (pure; every input passed in). One composer for every path that reaches an agent: an
 * outbound call a person answered, an inbound call on the agent route, an answering
 * policy's `ai` step, and a relay reconnected after its WebSocket died.
 *
 *   url              the relay URL + `?token=<Stream token>` (the WebSocket host checks the
 *                    upgrade with it), the same token as <Parameter name="token">
 *   action           /carrier/twilio/relay-action with the signed state (claims, reconnects)
 *   welcomeGreeting  the pinned version's disclosure (a reconnect: a short apology instead,
 *                    so the caller does not hear the opener twice)
 *   language/voice   the version's default language; one <Language> per supported language,
 *                    each voice from the stock voice catalogue (shared/voice/voices.ts)
 */
import type { AgentVersion } from '../schemas/agents.js';
import { disclosureGreeting } from '../voice/greeting.js';
import { providerVoice } from '../voice/voices.js';
import { type CallTokenKey, mintStreamToken, relayActionUrl, type StreamClaims } from './call-tokens.js';
import type { RelaySpeechSettings } from './relay-settings.js';
import { connectConversationRelay, twiml } from './twiml.js';

/** What of a pinned version the relay TwiML reads. */
export type RelayAgent = Pick<AgentVersion['definition'], 'disclosure_config' | 'conversation_settings' | 'stock_voice_id'>;

export const RECONNECT_GREETING = 'Sorry, I lost you for a moment.';
const FALLBACK_LANGUAGE = 'en-US';

export interface RelayInput {
  claims: StreamClaims;
  agent: RelayAgent;
  key: CallTokenKey;
  at: Date;
  /** The relay WebSocket URL (voiceRuntimeRelayUrl()). */
  relayUrl: string;
  /** Our public base URL (the action URL is built from it). */
  baseUrl: string;
  speech: RelaySpeechSettings;
  /** How long the token and the action URL stay valid; default STREAM_TOKEN_TTL_SECONDS. */
  ttlSeconds?: number;
  /** Reconnects already made after the WebSocket died (0 on the first connect). */
  reconnects?: number;
}

export const relayActionBase = (baseUrl: string) => `${baseUrl}/carrier/twilio/relay-action`;

const withToken = (url: string, token: string) => `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;

export function relayTwiml(input: RelayInput): string {
  const reconnects = input.reconnects ?? 0;
  const token = mintStreamToken(input.key, input.claims, input.at, input.ttlSeconds);
  const settings = input.agent.conversation_settings;
  const language = settings?.default_language || FALLBACK_LANGUAGE;
  const supported = settings?.supported_languages?.length ? settings.supported_languages : [language];
  const voiceFor = (code: string) => providerVoice(input.speech.ttsProvider, input.agent.stock_voice_id, code);
  return twiml(
    connectConversationRelay({
      action: relayActionUrl(relayActionBase(input.baseUrl), input.key, { ...input.claims, reconnects }, input.at, input.ttlSeconds),
      url: withToken(input.relayUrl, token),
      welcomeGreeting: reconnects > 0 ? RECONNECT_GREETING : disclosureGreeting(input.agent),
      language,
      voice: voiceFor(language),
      ttsProvider: input.speech.ttsProvider,
      transcriptionProvider: input.speech.transcriptionProvider,
      speechModel: input.speech.speechModel,
      languages: supported.map((code) => ({ code, voice: voiceFor(code), ttsProvider: input.speech.ttsProvider })),
      parameters: { token },
    }),
  );
}
