/**
 * Where a model's API key comes from: the `credentials` port, keyed by the secret name the
 * registry entry names. On AWS a Secrets Manager secret (its string is the key itself, or a
 * JSON object with `api_key`); locally the `llm_credentials` object of the local secrets file
 * (passed in APP_SECRETS_JSON). Tests pass a fixed map. Keys are never logged.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export interface Credentials {
  /** The API key stored under `secretName`; rejects when there is none. */
  apiKey(secretName: string): Promise<string>;
}

export class MissingCredentialsError extends Error {
  constructor(secretName: string) {
    super(`no API key is configured under the secret name ${secretName}`);
    this.name = 'MissingCredentialsError';
  }
}

/** Keys from a fixed map (tests; the local secrets file). */
export function staticCredentials(keys: Readonly<Record<string, string>>): Credentials {
  return {
    async apiKey(name) {
      const key = Object.hasOwn(keys, name) ? keys[name] : undefined;
      if (!key) throw new MissingCredentialsError(name);
      return key;
    },
  };
}

/** Keys from Secrets Manager, each read once per container (a failed read is retried next time). */
export function secretsManagerCredentials(client: Pick<SecretsManagerClient, 'send'> = new SecretsManagerClient({})): Credentials {
  const cache = new Map<string, Promise<string>>();
  const load = async (name: string): Promise<string> => {
    const out = await client.send(new GetSecretValueCommand({ SecretId: name }));
    const key = keyOf(out.SecretString ?? '');
    if (!key) throw new MissingCredentialsError(name);
    return key;
  };
  return {
    apiKey(name) {
      let pending = cache.get(name);
      if (!pending) {
        pending = load(name).catch((err) => {
          cache.delete(name);
          throw err;
        });
        cache.set(name, pending);
      }
      return pending;
    },
  };
}

function keyOf(secret: string): string | undefined {
  const trimmed = secret.trim();
  if (!trimmed.startsWith('{')) return trimmed || undefined;
  try {
    const value = (JSON.parse(trimmed) as Record<string, unknown>).api_key;
    return typeof value === 'string' && value ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Locally (APP_SECRETS_JSON set) the secrets file's `llm_credentials`; on AWS Secrets Manager. */
export function platformCredentials(env: Readonly<Record<string, string | undefined>> = process.env): Credentials {
  const inline = env.APP_SECRETS_JSON;
  if (!inline) return secretsManagerCredentials();
  const raw = (JSON.parse(inline) as { llm_credentials?: unknown }).llm_credentials;
  const keys: Record<string, string> = {};
  if (raw && typeof raw === 'object') {
    for (const [name, key] of Object.entries(raw)) if (typeof key === 'string') keys[name] = key;
  }
  return staticCredentials(keys);
}
