import { describe, expect, it } from 'vitest';
import { MissingCredentialsError, platformCredentials, secretsManagerCredentials, staticCredentials } from '../../shared/voice/llm/credentials.js';
import { createRegistry, DEFAULT_MODELS, registryFromEnv } from '../../shared/voice/llm/registry.js';

describe('model registry', () => {
  const registry = createRegistry();

  it('knows the catalogue ids and nothing else', () => {
    for (const id of [
      'gpt-4o',
      'gpt-4o-mini',
      'claude-sonnet-4-5',
      'bedrock:anthropic.claude-3-5-haiku-20241022-v1:0',
      'sandbox-default',
      'sandbox-slow',
      'sandbox-failing',
    ]) {
      expect(registry.isKnownModel(id), id).toBe(true);
    }
    for (const id of ['gpt-5-imaginary', 'GPT-4O', '', 'sandbox', 'bedrock:']) expect(registry.isKnownModel(id), id).toBe(false);
    expect(registry.get('claude-sonnet-4-5')).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5', credentials: 'llm/anthropic' });
    expect(registry.get('bedrock:amazon.nova-lite-v1:0')).toMatchObject({ provider: 'bedrock', model: 'amazon.nova-lite-v1:0', credentials: null });
    expect(registry.get('sandbox-slow')).toMatchObject({ provider: 'sandbox', sandbox: 'slow' });
    expect(new Set(DEFAULT_MODELS.map((m) => m.provider))).toEqual(new Set(['openai', 'anthropic', 'bedrock', 'sandbox']));
  });

  it('effectiveRoute: null is the platform default; a sandbox account runs sandbox models only', () => {
    expect(registry.effectiveRoute(null, { sandbox: false })).toEqual({ primary: 'sandbox-default', fallbacks: [] });
    const route = { primary: 'gpt-4o', fallbacks: ['claude-sonnet-4-5', 'sandbox-slow'] };
    expect(registry.effectiveRoute(route, { sandbox: false })).toEqual(route);
    expect(registry.effectiveRoute(route, { sandbox: true })).toEqual({ primary: 'sandbox-default', fallbacks: ['sandbox-slow'] });
    expect(registry.effectiveRoute({ primary: 'sandbox-failing', fallbacks: ['gpt-4o', 'sandbox-default'] }, { sandbox: true })).toEqual({
      primary: 'sandbox-failing',
      fallbacks: ['sandbox-default'],
    });
  });

  it('expands platform-default (a runtime stand-in for a null route) into the default chain; agents cannot name it', () => {
    const custom = createRegistry({ defaultRoute: { primary: 'gpt-4o-mini', fallbacks: ['sandbox-default'] } });
    expect(custom.isKnownModel('platform-default')).toBe(false);
    expect(custom.expandRoute({ primary: 'platform-default', fallbacks: [] })).toEqual({ primary: 'gpt-4o-mini', fallbacks: ['sandbox-default'] });
    expect(custom.expandRoute({ primary: 'sandbox-default', fallbacks: ['platform-default'] })).toEqual({
      primary: 'sandbox-default',
      fallbacks: ['gpt-4o-mini'],
    });
    expect(custom.effectiveRoute({ primary: 'platform-default', fallbacks: [] }, { sandbox: true })).toEqual({ primary: 'sandbox-default', fallbacks: [] });
  });

  it('reads openai-compatible endpoints and the default chain from the environment', () => {
    const env = {
      LLM_MODELS: JSON.stringify([{ id: 'acme-llama', model: 'llama-3.1-70b', base_url: 'https://llm.acme.test/v1', credentials: 'llm/acme' }]),
      DEFAULT_LLM_ROUTE: JSON.stringify({ primary: 'acme-llama', fallbacks: ['gpt-4o-mini'] }),
    };
    const fromEnv = registryFromEnv(env);
    expect(fromEnv.get('acme-llama')).toEqual({
      id: 'acme-llama',
      provider: 'openai_compatible',
      model: 'llama-3.1-70b',
      baseURL: 'https://llm.acme.test/v1',
      credentials: 'llm/acme',
    });
    expect(fromEnv.effectiveRoute(null, { sandbox: false })).toEqual({ primary: 'acme-llama', fallbacks: ['gpt-4o-mini'] });
    expect(fromEnv.effectiveRoute(null, { sandbox: true })).toEqual({ primary: 'sandbox-default', fallbacks: [] });
  });

  it('refuses a malformed setting, naming the variable', () => {
    expect(() => registryFromEnv({ LLM_MODELS: '{' })).toThrow(/LLM_MODELS is not valid JSON/);
    expect(() => registryFromEnv({ LLM_MODELS: JSON.stringify([{ id: 'x', model: 'y', base_url: 'ftp://x' }]) })).toThrow(/LLM_MODELS is malformed/);
    expect(() => registryFromEnv({ LLM_MODELS: JSON.stringify([{ id: 'gpt-4o', model: 'y', base_url: 'https://x.test' }]) })).toThrow(/defined twice/);
    expect(() => registryFromEnv({ DEFAULT_LLM_ROUTE: JSON.stringify({ primary: 'nope' }) })).toThrow(/unknown model: nope/);
  });
});

describe('credentials', () => {
  it('static keys by secret name; a missing one rejects without echoing any key', async () => {
    const creds = staticCredentials({ 'llm/openai': 'sk-test' });
    await expect(creds.apiKey('llm/openai')).resolves.toBe('sk-test');
    await expect(creds.apiKey('llm/anthropic')).rejects.toBeInstanceOf(MissingCredentialsError);
  });

  it('locally reads llm_credentials from the app secrets JSON', async () => {
    const creds = platformCredentials({ APP_SECRETS_JSON: JSON.stringify({ api_key_pepper: 'x', llm_credentials: { 'llm/anthropic': 'sk-ant' } }) });
    await expect(creds.apiKey('llm/anthropic')).resolves.toBe('sk-ant');
    await expect(creds.apiKey('llm/openai')).rejects.toThrow(/llm\/openai/);
  });

  it('Secrets Manager: the plain string or {api_key}; read once, a failure retried', async () => {
    const asked: string[] = [];
    let fail = true;
    const client = {
      send: async (command: { input: { SecretId?: string } }) => {
        asked.push(command.input.SecretId!);
        if (fail) {
          fail = false;
          throw new Error('throttled');
        }
        return { SecretString: command.input.SecretId === 'a' ? ' sk-a ' : JSON.stringify({ api_key: 'sk-b' }) };
      },
    };
    const creds = secretsManagerCredentials(client as never);
    await expect(creds.apiKey('a')).rejects.toThrow('throttled');
    await expect(creds.apiKey('a')).resolves.toBe('sk-a');
    await expect(creds.apiKey('a')).resolves.toBe('sk-a');
    await expect(creds.apiKey('b')).resolves.toBe('sk-b');
    expect(asked).toEqual(['a', 'a', 'b']);
  });
});
