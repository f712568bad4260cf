/**
 * The LLM model registry: which model ids an agent's `llm_route` may name, which provider
 * serves each, under which provider model name, and where its credentials come from.
 *
 * The default catalogue (DEFAULT_MODELS) names a few real models per provider plus the
 * deterministic sandbox models. A deployment adds OpenAI-compatible endpoints with the JSON
 * env var `LLM_MODELS`:
 *
 *   [{"id": "acme-llama", "model": "llama-3.1-70b", "base_url": "https://llm.acme.test/v1",
 *     "credentials": "llm/acme"}]
 *
 * `credentials` is a secret name: a Secrets Manager secret on AWS, a key of `llm_credentials`
 * in the local secrets file locally (see credentials.ts). Bedrock models use the function's
 * IAM role and name no secret; sandbox models need none.
 *
 * The platform default chain (an agent's `llm_route: null`) is `DEFAULT_LLM_ROUTE` (JSON,
 * `{"primary": "...", "fallbacks": [...]}`) or else sandbox-default alone. A call placed on a
 * mock (sandbox) telephony account always runs on sandbox models: `effectiveRoute`.
 *
 * This module reads the environment but imports no provider package, so the agent schemas
 * can ask `isKnownModel` cheaply.
 */
import * as z from 'zod';

export const PROVIDERS = ['openai', 'anthropic', 'bedrock', 'openai_compatible', 'sandbox'] as const;
export type Provider = (typeof PROVIDERS)[number];

export type SandboxBehaviour = 'default' | 'slow' | 'failing';

export interface ModelEntry {
  /** What `llm_route` names. */
  id: string;
  provider: Provider;
  /** The provider's own model name. */
  model: string;
  /** The secret holding the provider API key; null when none is needed (bedrock: IAM role; sandbox). */
  credentials: string | null;
  /** openai_compatible only: the endpoint's base URL. */
  baseURL?: string;
  /** sandbox only: how the deterministic model behaves. */
  sandbox?: SandboxBehaviour;
}

export interface LlmRoute {
  primary: string;
  fallbacks: readonly string[];
}

export const SANDBOX_DEFAULT = 'sandbox-default';
export const SANDBOX_SLOW = 'sandbox-slow';
export const SANDBOX_FAILING = 'sandbox-failing';

const OPENAI_KEY = 'llm/openai';
const ANTHROPIC_KEY = 'llm/anthropic';

const openai = (id: string): ModelEntry => ({ id, provider: 'openai', model: id, credentials: OPENAI_KEY });
const anthropic = (id: string, model = id): ModelEntry => ({ id, provider: 'anthropic', model, credentials: ANTHROPIC_KEY });
const bedrock = (model: string): ModelEntry => ({ id: `bedrock:${model}`, provider: 'bedrock', model, credentials: null });
const sandbox = (id: string, behaviour: SandboxBehaviour): ModelEntry => ({ id, provider: 'sandbox', model: id, credentials: null, sandbox: behaviour });

/** The catalogue every deployment has. */
export const DEFAULT_MODELS: readonly ModelEntry[] = [
  openai('gpt-4o'),
  openai('gpt-4o-mini'),
  openai('gpt-4.1'),
  openai('gpt-4.1-mini'),
  anthropic('claude-sonnet-4-5'),
  anthropic('claude-haiku-4-5'),
  anthropic('claude-3-5-haiku', 'claude-3-5-haiku-latest'),
  bedrock('anthropic.claude-3-5-haiku-20241022-v1:0'),
  bedrock('anthropic.claude-3-5-sonnet-20241022-v2:0'),
  bedrock('amazon.nova-lite-v1:0'),
  sandbox(SANDBOX_DEFAULT, 'default'),
  sandbox(SANDBOX_SLOW, 'slow'),
  sandbox(SANDBOX_FAILING, 'failing'),
];

export const PLATFORM_FALLBACK_ROUTE: LlmRoute = { primary: SANDBOX_DEFAULT, fallbacks: [] };

/**
 * Not a model: a runtime's stand-in for "the platform default chain" (an agent's null route),
 * expanded by `expandRoute`. Agents cannot name it (it is not a known model).
 */
export const PLATFORM_DEFAULT_MODEL = 'platform-default';

const modelId = z.string().min(1).max(200);

const extraModels = z.array(
  z.strictObject({
    id: modelId,
    model: z.string().min(1).max(200),
    base_url: z.url({ protocol: /^https?$/ }),
    credentials: z.string().min(1).max(512).nullable().default(null),
  }),
);

const routeSetting = z.strictObject({ primary: modelId, fallbacks: z.array(modelId).max(5).default([]) });

export interface ModelRegistry {
  get(id: string): ModelEntry | undefined;
  isKnownModel(id: string): boolean;
  ids(): string[];
  /** The chain an agent with `llm_route: null` runs. */
  readonly defaultRoute: LlmRoute;
  /** The route with PLATFORM_DEFAULT_MODEL replaced by the default chain (duplicates dropped). */
  expandRoute(route: LlmRoute): LlmRoute;
  /**
   * The chain a call actually runs: the agent's route (null = the platform default); on a
   * sandbox account every non-sandbox model is replaced by sandbox-default (duplicates
   * dropped), so a sandbox call never reaches a paid provider.
   */
  effectiveRoute(route: LlmRoute | null, opts: { sandbox: boolean }): LlmRoute;
}

export interface RegistrySettings {
  /** Entries beyond DEFAULT_MODELS (ids must be new). */
  extra?: readonly ModelEntry[];
  defaultRoute?: LlmRoute;
}

export function createRegistry(settings: RegistrySettings = {}): ModelRegistry {
  const byId = new Map<string, ModelEntry>();
  for (const entry of [...DEFAULT_MODELS, ...(settings.extra ?? [])]) {
    if (byId.has(entry.id)) throw new Error(`LLM model id ${entry.id} is defined twice`);
    byId.set(entry.id, entry);
  }
  const defaultRoute = settings.defaultRoute ?? PLATFORM_FALLBACK_ROUTE;
  for (const id of [defaultRoute.primary, ...defaultRoute.fallbacks]) {
    if (!byId.has(id)) throw new Error(`the default LLM route names an unknown model: ${id}`);
  }
  const isSandbox = (id: string) => byId.get(id)?.provider === 'sandbox';
  const routeOf = (ids: readonly string[]): LlmRoute => {
    const unique = ids.filter((id, i) => ids.indexOf(id) === i);
    return { primary: unique[0]!, fallbacks: unique.slice(1) };
  };
  const expandRoute = (route: LlmRoute) =>
    routeOf([route.primary, ...route.fallbacks].flatMap((id) => (id === PLATFORM_DEFAULT_MODEL ? [defaultRoute.primary, ...defaultRoute.fallbacks] : [id])));
  return {
    get: (id) => byId.get(id),
    isKnownModel: (id) => byId.has(id),
    ids: () => [...byId.keys()],
    defaultRoute,
    expandRoute,
    effectiveRoute(route, { sandbox }) {
      const chosen = expandRoute(route ?? defaultRoute);
      const ids = [chosen.primary, ...chosen.fallbacks];
      return routeOf(sandbox ? ids.map((id) => (isSandbox(id) ? id : SANDBOX_DEFAULT)) : ids);
    },
  };
}

/** Reads `LLM_MODELS` and `DEFAULT_LLM_ROUTE`; a malformed setting throws naming the variable. */
export function registryFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): ModelRegistry {
  const extra = env.LLM_MODELS ? parseSetting('LLM_MODELS', env.LLM_MODELS, extraModels) : [];
  const route = env.DEFAULT_LLM_ROUTE ? parseSetting('DEFAULT_LLM_ROUTE', env.DEFAULT_LLM_ROUTE, routeSetting) : undefined;
  return createRegistry({
    extra: extra.map((m) => ({ id: m.id, provider: 'openai_compatible', model: m.model, baseURL: m.base_url, credentials: m.credentials })),
    defaultRoute: route,
  });
}

function parseSetting<T extends z.ZodType>(name: string, raw: string, schema: T): z.output<T> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error(`${name} is not valid JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(`${name} is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

let platform: ModelRegistry | undefined;

/** The deployment's registry, built once from the environment. */
export function platformRegistry(): ModelRegistry {
  platform ??= registryFromEnv();
  return platform;
}

/** Test hook: rebuild the platform registry from the environment on next use. */
export function resetPlatformRegistryForTests(): void {
  platform = undefined;
}

/** Whether `llm_route` may name this model id in this deployment. */
export const isKnownModel = (id: string): boolean => platformRegistry().isKnownModel(id);
