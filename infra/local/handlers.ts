/**
 * Lazy handler loading: a manifest entry's module is imported on the first request (or
 * message) that needs it, then cached, so a missing or broken module fails only its own
 * route. Failures are not cached: fix the file and the next request picks it up.
 *
 * Every handler handed out runs each invocation under its own logger (withInvocationLogger):
 * one process serves every function at once here, and a shared logger's keys and Lambda
 * context would tag one invocation's lines with another's function, route and ids.
 */
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { repoRoot, resolveModuleFile } from './paths.js';

export class HandlerModuleError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HandlerModuleError';
  }
}

export interface HandlerLoader<H> {
  /** `id` selects an override; `modulePath` is the manifest's handler path. */
  load(id: string, modulePath: string): Promise<H>;
}

export function createHandlerLoader<H extends (...args: never[]) => unknown>(
  opts: { root?: string; overrides?: Readonly<Record<string, H>> } = {},
): HandlerLoader<H> {
  const cache = new Map<string, Promise<H>>();
  return {
    load(id, modulePath) {
      const override = opts.overrides?.[id];
      if (override) return ownLogger(override);
      let pending = cache.get(modulePath);
      if (!pending) {
        pending = importHandler<H>(modulePath, opts.root ?? repoRoot).then(ownLogger);
        cache.set(modulePath, pending);
        pending.catch(() => cache.delete(modulePath));
      }
      return pending;
    },
  };
}

/**
 * The handler, each call run under a logger of its own (its Lambda context: the second argument).
 * Observability is imported here, not at the top: its logger must be built after the stack set the env.
 */
let observability: Promise<typeof import('../../shared/observability.js')> | undefined;
async function ownLogger<H extends (...args: never[]) => unknown>(handler: H): Promise<H> {
  // Imported once: an override is wrapped on every request, and each dynamic import is a round trip through tsx's loader thread (~5 ms under load).
  observability ??= import('../../shared/observability.js');
  const { withInvocationLogger } = await observability;
  return ((...args: Parameters<H>) => withInvocationLogger(() => handler(...args), args[1] as Context | undefined)) as H;
}

async function importHandler<H>(modulePath: string, root: string): Promise<H> {
  const file = resolveModuleFile(modulePath, root);
  if (!file) throw new HandlerModuleError(`handler module ${modulePath} does not exist (looked for .ts/.js under ${root})`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw new HandlerModuleError(`handler module ${modulePath} failed to load: ${(err as Error)?.message ?? err}`, { cause: err });
  }
  const handler = mod.handler ?? (mod.default as Record<string, unknown> | undefined)?.handler;
  if (typeof handler !== 'function') throw new HandlerModuleError(`handler module ${modulePath} does not export a handler function`);
  return handler as H;
}
