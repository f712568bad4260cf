/**
 * From a registry model id to an AI SDK language model. Provider models are built lazily:
 * the API key is read (credentials port) on the first call, so resolving is synchronous and a
 * missing key surfaces as that model's failure — the chain then falls over to the next one.
 */
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { Credentials } from './credentials.js';
import type { ModelEntry, ModelRegistry } from './registry.js';
import { createSandboxModel, type SandboxModelOptions } from './sandbox-model.js';

export interface ModelResolverDeps {
  registry: ModelRegistry;
  credentials: Credentials;
  /** Options for the sandbox models (sandbox-slow's first-token delay, the clock). */
  sandbox?: Omit<SandboxModelOptions, 'behaviour' | 'modelId'>;
  region?: string;
}

export class UnknownModelError extends Error {
  constructor(id: string) {
    super(`unknown LLM model id: ${id}`);
    this.name = 'UnknownModelError';
  }
}

export function createModelResolver(deps: ModelResolverDeps): (id: string) => LanguageModelV3 {
  const built = new Map<string, LanguageModelV3>();
  return (id) => {
    const entry = deps.registry.get(id);
    if (!entry) throw new UnknownModelError(id);
    let model = built.get(id);
    if (!model) {
      model =
        entry.provider === 'sandbox'
          ? createSandboxModel({ ...deps.sandbox, modelId: entry.id, behaviour: entry.sandbox ?? 'default' })
          : lazyModel(entry, () => providerModel(entry, deps));
      built.set(id, model);
    }
    return model;
  };
}

async function providerModel(entry: ModelEntry, deps: ModelResolverDeps): Promise<LanguageModelV3> {
  const apiKey = entry.credentials ? await deps.credentials.apiKey(entry.credentials) : undefined;
  switch (entry.provider) {
    case 'openai':
      return createOpenAI({ apiKey })(entry.model);
    case 'anthropic':
      return createAnthropic({ apiKey })(entry.model);
    case 'bedrock':
      // The function's IAM role (AWS_* environment credentials) unless a Bedrock API key is named.
      return createAmazonBedrock({ region: deps.region ?? process.env.AWS_REGION ?? 'us-east-1', ...(apiKey ? { apiKey } : {}) })(entry.model);
    case 'openai_compatible':
      return createOpenAICompatible({ name: entry.id, baseURL: entry.baseURL!, apiKey })(entry.model);
    case 'sandbox':
      throw new Error('sandbox models are built directly');
  }
}

/** A model whose provider client is created on first use (after the key is read), then reused. */
function lazyModel(entry: ModelEntry, load: () => Promise<LanguageModelV3>): LanguageModelV3 {
  let pending: Promise<LanguageModelV3> | undefined;
  const inner = () => {
    pending ??= load().catch((err) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
  return {
    specificationVersion: 'v3',
    provider: entry.provider,
    modelId: entry.model,
    supportedUrls: {},
    doGenerate: async (options: LanguageModelV3CallOptions) => (await inner()).doGenerate(options),
    doStream: async (options: LanguageModelV3CallOptions) => (await inner()).doStream(options),
  };
}
