/**
 * The LLM settings the voice runtime's functions are deployed with (infra/constructs/relay-api.ts):
 * checked at synth, so a bad setting fails the deploy instead of every reply.
 */
import { describe, expect, it } from 'vitest';
import { LLM_SECRET_PREFIX, llmSettings } from '../../infra/constructs/relay-api.js';
import { DEFAULT_MODELS } from '../../shared/voice/llm/registry.js';

const acme = (credentials: string) => JSON.stringify([{ id: 'acme-llama', model: 'llama-3.1-70b', base_url: 'https://llm.acme.test/v1', credentials }]);

describe('llmSettings', () => {
  it('without settings: no variables, and the Bedrock models of the default catalogue', () => {
    const { environment, bedrockModels } = llmSettings();
    expect(environment).toEqual({});
    expect(bedrockModels).toEqual(DEFAULT_MODELS.filter((m) => m.provider === 'bedrock').map((m) => m.model));
    expect(bedrockModels.length).toBeGreaterThan(0);
  });

  it('passes the settings through as the registry reads them', () => {
    const route = JSON.stringify({ primary: 'acme-llama', fallbacks: ['gpt-4o-mini'] });
    expect(llmSettings({ models: acme(`${LLM_SECRET_PREFIX}acme`), defaultRoute: route }).environment).toEqual({
      LLM_MODELS: acme('llm/acme'),
      DEFAULT_LLM_ROUTE: route,
    });
  });

  it('refuses a model whose key is outside the llm/ secrets, and a malformed setting, naming it', () => {
    expect(() => llmSettings({ models: acme('prod/db-password') })).toThrow(/acme-llama.*llm\//);
    expect(() => llmSettings({ models: '[{' })).toThrow(/LLM_MODELS/);
    expect(() => llmSettings({ defaultRoute: JSON.stringify({ primary: 'no-such-model' }) })).toThrow(/no-such-model/);
  });
});
