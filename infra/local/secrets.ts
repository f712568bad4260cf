/**
 * Local application secrets (shared/secrets.ts reads them from APP_SECRETS_JSON).
 * With a data dir they live in <dataDir>/secrets.json, created on first run with fresh
 * random keys and mode 0600, and reused afterwards — API keys minted yesterday still
 * verify today. Without one (tests) they are random per run.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LocalSecrets {
  api_key_pepper: string;
  cursor_key: string;
  /** The platform's own carrier account: locally a sandbox carrier account (seeded on start). */
  platform_twilio_account_sid?: string;
  platform_twilio_auth_token?: string;
  /** The sandbox payment provider signs its invoice webhooks with this (see docs/decisions/billing.md). */
  payment_webhook_secret?: string;
  /**
   * LLM provider API keys by the secret name a registry model names (`llm/openai`,
   * `llm/anthropic`, an LLM_MODELS endpoint's `credentials`). Optional: without a key, that
   * model's attempts fail and the chain falls over (sandbox models need none).
   */
  llm_credentials?: Record<string, string>;
}

const paymentSecret = () => ({ payment_webhook_secret: `whsec_${randomBytes(24).toString('hex')}` });

const platformCarrier = () => ({
  platform_twilio_account_sid: `AC${randomBytes(16).toString('hex')}`,
  platform_twilio_auth_token: randomBytes(16).toString('hex'),
});

export const randomSecrets = (): LocalSecrets => ({
  api_key_pepper: randomBytes(32).toString('hex'),
  cursor_key: randomBytes(32).toString('hex'),
  ...platformCarrier(),
  ...paymentSecret(),
});

/** A fresh key for the local secret box (shared/crypto/secret-box.ts), base64. */
export const randomCredentialsKey = (): string => randomBytes(32).toString('base64');

/** <dataDir>/credentials.key: the local stand-in for KMS, created once (mode 0600) and kept. */
export function loadOrCreateCredentialsKey(dataDir: string): string {
  const file = join(dataDir, 'credentials.key');
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, `${randomCredentialsKey()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return file;
}

export const secretsFile = (dataDir: string): string => join(dataDir, 'secrets.json');

export function loadOrCreateSecrets(dataDir: string): LocalSecrets {
  const file = secretsFile(dataDir);
  mkdirSync(dataDir, { recursive: true });
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalSecrets>;
    if (typeof raw.api_key_pepper !== 'string' || raw.api_key_pepper.length < 32 || typeof raw.cursor_key !== 'string' || raw.cursor_key.length < 32) {
      throw new Error(`${file} is malformed (needs api_key_pepper and cursor_key of 32+ chars); fix or delete it`);
    }
    chmodSync(file, 0o600);
    const secrets: LocalSecrets = { ...raw, api_key_pepper: raw.api_key_pepper, cursor_key: raw.cursor_key };
    if (!raw.platform_twilio_account_sid || !raw.platform_twilio_auth_token || !raw.payment_webhook_secret) {
      // Written by an older version: add what it lacks, keep what it has.
      if (!raw.platform_twilio_account_sid || !raw.platform_twilio_auth_token) Object.assign(secrets, platformCarrier());
      if (!raw.payment_webhook_secret) Object.assign(secrets, paymentSecret());
      writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
    }
    return secrets;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secrets = randomSecrets();
  try {
    // 'wx': if another process created it a moment ago, use theirs.
    writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateSecrets(dataDir);
    throw err;
  }
  return secrets;
}
