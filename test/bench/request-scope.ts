/**
 * Tells a route's own DynamoDB calls from the background ones (the scheduler's ticks, the
 * workers) in a benchmark that runs the whole local stack in one process: the route's
 * handler is replaced by one that runs the real handler inside an AsyncLocalStorage scope,
 * so a client middleware can ask `inRoute.getStore()` whose call it sees. Imports no
 * application module (it is loaded before the stack sets the environment).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHandlerLoader } from '../../infra/local/handlers.js';
import type { SqsHandler } from '../../infra/local/pollers.js';
import type { HttpHandler } from '../../infra/local/server.js';

export const inRoute = new AsyncLocalStorage<string>();

/** The manifest handler of `routeId`, run inside `inRoute` (pass it as a local stack routeHandlers override). */
export function scopedRoute(routeId: string, modulePath: string): HttpHandler {
  const loader = createHandlerLoader<HttpHandler>();
  return (event, context) => inRoute.run(routeId, async () => (await loader.load(routeId, modulePath))(event, context));
}

/**
 * A worker the bench can hold (`paused`): a batch handed to it waits until it resumes, so a
 * route's latency can be timed without the worker's work on the same event loop. Messages
 * polled meanwhile stay invisible for their timeout, far longer than a bench phase.
 */
export function gatedWorker(workerId: string, modulePath: string) {
  const loader = createHandlerLoader<SqsHandler>();
  let open: Promise<void> = Promise.resolve();
  let release: () => void = () => {};
  return {
    handler: (async (event, context) => {
      await open;
      return (await loader.load(workerId, modulePath))(event, context);
    }) as SqsHandler,
    pause() {
      open = new Promise<void>((r) => {
        release = r;
      });
      // Loaded now, as the stack loads an ungated worker before it polls: a phase timed after the
      // hold must not count the module's first import (its failure surfaces with the first batch).
      loader.load(workerId, modulePath).catch(() => {});
    },
    resume() {
      release();
      open = Promise.resolve();
    },
  };
}
