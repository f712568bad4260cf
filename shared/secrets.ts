/**
 * Application secrets (API key pepper, cursor signing key). On AWS they live in one
 * Secrets Manager secret (APP_SECRET_ARN) read once per cold start; locally the runtime
 * passes them in APP_SECRETS_JSON from .local/secrets.json. Never logged, never returned.
 * Read with one signed call (shared/aws/aws-json.ts), not the Secrets Manager client.
 */
import { awsJsonCall } from './aws/aws-json.js';

export interface AppSecrets {
  /** HMAC key for hashing API key secrets at rest. */
  readonly apiKeyPepper: string;
  /** HMAC key for signing pagination cursors. */
  readonly cursorKey: string;
  /** The platform's own carrier account, used by managed telephony accounts (optional deployment setting). */
  readonly platformCarrier?: { readonly accountSid: string; readonly authToken: string };
  /** The deployment's Google OAuth client (calendar connections; optional deployment setting). */
  readonly googleOAuth?: { readonly clientId: string; readonly clientSecret: string };
  /**
   * The payment provider (see docs/decisions/billing.md; deployment settings): the webhook signing secret its
   * events are verified with (`payment_webhook_secret`, whsec_…), and Stripe's secret key
   * (`stripe_secret_key`) — without one, invoices go to the sandbox payment provider.
   */
  readonly payments?: { readonly webhookSecret: string; readonly stripeSecretKey?: string };
}

let cached: Promise<AppSecrets> | undefined;

export function appSecrets(): Promise<AppSecrets> {
  cached ??= load().catch((err) => {
    cached = undefined; // a transient failure must not poison the container
    throw err;
  });
  return cached;
}

async function load(): Promise<AppSecrets> {
  const inline = process.env.APP_SECRETS_JSON;
  if (inline) return parse(inline);
  const arn = process.env.APP_SECRET_ARN;
  if (!arn) throw new Error('neither APP_SECRETS_JSON nor APP_SECRET_ARN is set');
  const out = await awsJsonCall<{ SecretString?: string }>('secretsmanager', 'secretsmanager.GetSecretValue', { SecretId: arn });
  return parse(out.SecretString ?? '');
}

function parse(json: string): AppSecrets {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const apiKeyPepper = raw.api_key_pepper;
  const cursorKey = raw.cursor_key;
  if (typeof apiKeyPepper !== 'string' || apiKeyPepper.length < 32 || typeof cursorKey !== 'string' || cursorKey.length < 32) {
    throw new Error('application secret is malformed (needs api_key_pepper and cursor_key, 32+ chars)');
  }
  const sid = raw.platform_twilio_account_sid;
  const token = raw.platform_twilio_auth_token;
  const platformCarrier = typeof sid === 'string' && sid && typeof token === 'string' && token ? { accountSid: sid, authToken: token } : undefined;
  const gid = raw.google_oauth_client_id;
  const gsecret = raw.google_oauth_client_secret;
  const googleOAuth = typeof gid === 'string' && gid && typeof gsecret === 'string' && gsecret ? { clientId: gid, clientSecret: gsecret } : undefined;
  const webhookSecret = raw.payment_webhook_secret;
  const stripeSecretKey = raw.stripe_secret_key;
  const payments =
    typeof webhookSecret === 'string' && webhookSecret.length >= 16
      ? { webhookSecret, ...(typeof stripeSecretKey === 'string' && stripeSecretKey ? { stripeSecretKey } : {}) }
      : undefined;
  return {
    apiKeyPepper,
    cursorKey,
    ...(platformCarrier ? { platformCarrier } : {}),
    ...(googleOAuth ? { googleOAuth } : {}),
    ...(payments ? { payments } : {}),
  };
}

/** Test hook: forget the cached secrets (after changing the environment). */
export function resetAppSecretsCache(): void {
  cached = undefined;
}
