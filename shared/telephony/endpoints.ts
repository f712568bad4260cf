/**
 * Where carriers are reached and where they reach us: deployment settings, never rebuilt
 * from a request's Host header (carrier signatures are over the URL the carrier was given).
 */
const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The API's public base URL (the stack's API URL or custom domain; the local server's URL). */
export function publicBaseUrl(): string {
  const url = process.env.PUBLIC_BASE_URL;
  if (!url) throw new Error('PUBLIC_BASE_URL is not set');
  return trimSlash(url);
}

/** Twilio's REST API (locally: the sandbox carrier, so byo twilio accounts work offline). */
export const twilioApiBaseUrl = (): string => trimSlash(process.env.TWILIO_API_BASE_URL || 'https://api.twilio.com');

/** The sandbox carrier's Twilio-compatible REST API, served by this deployment (locally, through its edge: SANDBOX_API_BASE_URL). */
export const sandboxApiBaseUrl = (): string => trimSlash(process.env.SANDBOX_API_BASE_URL || `${publicBaseUrl()}/sandbox/twilio`);

/** The carrier-facing routes a BYO account pastes into its carrier console. */
export const carrierWebhookUrls = () => ({
  url: `${publicBaseUrl()}/carrier/twilio/voice`,
  status_callback_url: `${publicBaseUrl()}/carrier/twilio/status`,
});

/** The messaging routes a BYO account pastes into its carrier console (see docs/decisions/messaging.md). */
export const carrierMessagingWebhookUrls = () => ({
  url: `${publicBaseUrl()}/carrier/twilio/message`,
  status_callback_url: `${publicBaseUrl()}/carrier/twilio/message-status`,
});

/**
 * The voice runtime's ConversationRelay WebSocket URL (a deployment setting,
 * VOICE_RUNTIME_RELAY_URL; the older VOICE_RUNTIME_STREAM_URL is read as an alias); without
 * either, the runtime is taken to be served beside the API under /runtime/v1/relay. The
 * TwiML appends `?token=<Stream token>`: the WebSocket host authenticates the upgrade with it.
 */
/** The path ConversationRelay's WebSocket is served under (local server and AWS alike). */
export const VOICE_RUNTIME_RELAY_PATH = '/runtime/v1/relay';

export const voiceRuntimeRelayUrl = (): string =>
  trimSlash(
    process.env.VOICE_RUNTIME_RELAY_URL || process.env.VOICE_RUNTIME_STREAM_URL || `${publicBaseUrl().replace(/^http/, 'ws')}${VOICE_RUNTIME_RELAY_PATH}`,
  );
