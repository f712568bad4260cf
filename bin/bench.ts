/**
 * npm run bench — prints the figures behind the performance targets:
 *   1. every function bundle: size and cold init time;
 *   2. GET /v1/me through the local runtime vs a raw GetItem, and DynamoDB calls/request;
 *   3. a 10,000-row CSV import through the local API vs the raw per-row transaction rate;
 *   4. compliance engine evaluations per second (pure, no stack).
 *   5. a 100,000-number National DNC load and reload, and dncFacts latency.
 *   6. POST /v1/calls/preflight vs GET /v1/contacts/{id}, and DynamoDB calls per preflight.
 *   7. 500 calls to a mix of sandbox test numbers (answered, busy, no answer, machine) queued
 *      and dispatched at cps_limit 10: time to all dialled / terminal vs 50 s; POST /v1/calls
 *      (deferred and allowed) vs a raw TransactWriteItems of a captured queue transaction;
 *      DynamoDB calls per queued call, counting only the route's own.
 *   8. 2,000 webhook events committed through the outbox and delivered by the relay and the
 *      delivery worker to a local receiver: events/s next to a plain loop POSTing the same
 *      bodies with the same concurrency, commit → receipt p50/p99, DynamoDB calls per event.
 * Runs against its own in-memory local stack (free ports), so `npm start` may be running.
 *   9. a 1,000-contact campaign on sandbox numbers, cps_limit 20, concurrency_cap 50: wall time
 *      to completed next to the bound the caps impose, max in-flight and dials per second
 *      from the sandbox carrier's own records.
 *  10. the usage ledger: 100,000 rows in one month written through the ledger's transaction
 *      builder, then GET /v1/usage/summary latency (running totals) next to a full recomputation.
 *  11. the voice runtime on the local relay socket, its client (Twilio's stand-in) in a child
 *      process: overhead per turn from a prompt arriving to the first text frame sent (instant
 *      and 300 ms first-token models), interrupt to last stale frame, 100 conversations at once.
 * BENCH_ONLY=bundles|me|import|engine|dnc|preflight|calls|webhooks|campaigns|ledger|runtime|packs runs one part.
 */
import { cpus } from 'node:os';

// Set before any application module loads: Powertools reads these at construction.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const only = process.env.BENCH_ONLY;
console.log(`Benchmarks on Node ${process.version}, ${cpus().length} cores`);

if (!only || only === 'bundles') {
  const { measureBundles, measureClosures, printBundles } = await import('../test/bench/bundles.js');
  printBundles(await measureBundles(), measureClosures());
}

if (!only || only === 'engine') {
  const { measureEngine, printEngine } = await import('../test/bench/compliance-engine.js');
  printEngine(measureEngine());
}

if (!only || only === 'me' || only === 'import' || only === 'dnc' || only === 'preflight') {
  const { startLocalStack } = await import('../infra/local/stack.js');
  const stack = await startLocalStack({ port: 0, inMemory: true, workers: false, seed: false });
  try {
    if (!only || only === 'me') {
      const { measureMe, printMe } = await import('../test/bench/me-latency.js');
      printMe(await measureMe(stack));
    }
    if (!only || only === 'import') {
      const { measureImport, printImport } = await import('../test/bench/import.js');
      printImport(await measureImport(stack));
    }
    if (!only || only === 'dnc') {
      const { measureDncLoad, printDncLoad } = await import('../test/bench/dnc-load.js');
      printDncLoad(await measureDncLoad());
    }
    if (!only || only === 'preflight') {
      const { measurePreflight, printPreflight } = await import('../test/bench/preflight.js');
      printPreflight(await measurePreflight(stack));
    }
  } finally {
    await stack.stop();
  }
}

if (!only || only === 'calls') {
  // Its own stack: the dispatch worker, the sandbox carrier's timeline and the scheduler run;
  // POST /v1/calls runs in a scope that lets the bench count its DynamoDB calls apart.
  // The dispatch and analysis workers and the sandbox carrier's timeline can be held, so POST /v1/calls is timed on its own path.
  const { startLocalStack } = await import('../infra/local/stack.js');
  const { scopedRoute, gatedWorker } = await import('../test/bench/request-scope.js');
  const gates = {
    callDispatch: gatedWorker('callDispatchWorker', 'functions/workers/call-dispatch'),
    callAnalysis: gatedWorker('callAnalysisWorker', 'functions/workers/call-analysis'),
    sandboxTimeline: gatedWorker('sandboxTimelineWorker', 'functions/workers/sandbox-timeline'),
  };
  const stack = await startLocalStack({
    port: 0,
    inMemory: true,
    workers: true,
    seed: false,
    routeHandlers: { queueCall: scopedRoute('queueCall', 'functions/calls/queue-call') },
    workerHandlers: { callDispatch: gates.callDispatch.handler, callAnalysis: gates.callAnalysis.handler, sandboxTimeline: gates.sandboxTimeline.handler },
  });
  try {
    const { measureCalls, printCalls } = await import('../test/bench/calls.js');
    const each = (act: (g: (typeof gates)[keyof typeof gates]) => void) => () => {
      for (const g of Object.values(gates)) act(g);
    };
    printCalls(await measureCalls(stack, { hold: each((g) => g.pause()), release: each((g) => g.resume()) }));
  } finally {
    await stack.stop();
  }
}

if (!only || only === 'webhooks') {
  // Its own stack: the outbox relay and the webhook-delivery worker must run.
  const { startLocalStack } = await import('../infra/local/stack.js');
  const { WEBHOOK_BENCH_STACK, measureWebhooks, printWebhooks } = await import('../test/bench/webhooks.js');
  const stack = await startLocalStack({ port: 0, inMemory: true, workers: true, seed: false, ...WEBHOOK_BENCH_STACK });
  try {
    printWebhooks(await measureWebhooks(stack));
  } finally {
    await stack.stop();
  }
}

if (!only || only === 'campaigns') {
  // Its own stack: the scheduler (the campaign driver), the dispatch worker and the sandbox timeline run; short scripted calls.
  process.env.SANDBOX_STEP_MS ??= '100';
  const { startLocalStack } = await import('../infra/local/stack.js');
  const stack = await startLocalStack({ port: 0, inMemory: true, workers: true, seed: false, schedulerTickMs: 500 });
  try {
    const { measureCampaign, printCampaign } = await import('../test/bench/campaigns.js');
    printCampaign(await measureCampaign(stack));
  } finally {
    await stack.stop();
  }
}

if (!only || only === 'ledger') {
  const { startLocalStack } = await import('../infra/local/stack.js');
  const stack = await startLocalStack({ port: 0, inMemory: true, workers: false, seed: true });
  try {
    const { measureUsageLedger, printUsageLedger } = await import('../test/bench/usage-ledger.js');
    printUsageLedger(await measureUsageLedger(stack, Number(process.env.LEDGER_BENCH_ROWS) || 100_000));
  } finally {
    await stack.stop();
  }
}

if (!only || only === 'runtime') {
  const { startLocalStack } = await import('../infra/local/stack.js');
  const { measureRuntime, printRuntime, SwitchModel, sinkSessions } = await import('../test/bench/runtime.js');
  const model = new SwitchModel();
  const stack = await startLocalStack({ port: 0, inMemory: true, workers: false, seed: false, relay: { model, createSession: sinkSessions } });
  try {
    printRuntime(await measureRuntime(stack, model));
  } finally {
    await stack.stop();
  }
}

if (!only || only === 'packs') {
  // Beside the runtime's overhead: what retrieval from a pinned pack adds to each turn.
  const { startLocalStack } = await import('../infra/local/stack.js');
  const stack = await startLocalStack({ port: 0, inMemory: true, workers: false, seed: false });
  try {
    const { measurePacks, printPacks } = await import('../test/bench/knowledge-packs.js');
    printPacks(await measurePacks());
  } finally {
    await stack.stop();
  }
}
