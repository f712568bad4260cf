/**
 * The deployment's reply model, assembled once: the registry from the environment
 * (`LLM_MODELS`, `DEFAULT_LLM_ROUTE`), API keys through the credentials port (Secrets Manager
 * on AWS, the local secrets file locally), and sandbox-slow's first-token delay from
 * `SANDBOX_LLM_SLOW_MS` (milliseconds; default DEFAULT_SLOW_FIRST_TOKEN_MS).
 */
import type { ReplyModel } from '../ports.js';
import { createReplyModel } from './chain.js';
import { platformCredentials } from './credentials.js';
import { createModelResolver } from './providers.js';
import { platformRegistry } from './registry.js';
import { DEFAULT_SLOW_FIRST_TOKEN_MS } from './sandbox-model.js';

let cached: ReplyModel | undefined;

export function platformReplyModel(env: Readonly<Record<string, string | undefined>> = process.env): ReplyModel {
  if (cached) return cached;
  const registry = platformRegistry();
  const slow = Number(env.SANDBOX_LLM_SLOW_MS);
  const firstTokenDelayMs = Number.isFinite(slow) && slow >= 0 && env.SANDBOX_LLM_SLOW_MS ? slow : DEFAULT_SLOW_FIRST_TOKEN_MS;
  cached = createReplyModel({
    registry,
    resolveModel: createModelResolver({ registry, credentials: platformCredentials(env), sandbox: { firstTokenDelayMs } }),
  });
  return cached;
}

/** Test hook: rebuild from the environment on next use. */
export function resetPlatformReplyModelForTests(): void {
  cached = undefined;
}
