/**
 * The local event source mappings: one long-polling loop per worker in shared/workers.ts.
 * Each batch goes to the worker as a genuine SQSEvent; afterwards every record not named
 * in `batchItemFailures` is deleted. A worker that throws deletes nothing: the whole
 * batch comes back after the visibility timeout and, past maxReceiveCount, goes to the DLQ.
 */
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { HandlerLoader } from './handlers.js';
import { createLambdaContext } from './lambda-context.js';
import { acknowledgedRecords, toSqsEvent } from './sqs-event.js';

// eslint-disable-next-line @typescript-eslint/no-invalid-void-type
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface PolledWorker {
  /** Worker id (the function name on AWS); selects a handler override. */
  readonly id: string;
  /** Handler module path relative to the repo root. */
  readonly handler: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly timeoutSeconds: number;
  /** Batches handed to the worker at once (Lambda runs batches concurrently); default 1. */
  readonly batchesInFlight?: number;
}

export interface PollersOptions {
  sqs: SQSClient;
  workers: readonly PolledWorker[];
  loader: HandlerLoader<SqsHandler>;
  region: string;
  /** Long-poll wait per ReceiveMessage; short so a stop is prompt. Default 1 s. */
  waitTimeSeconds?: number;
  log?: (line: string) => void;
}

export interface Pollers {
  stop(): Promise<void>;
}

export function startPollers(opts: PollersOptions): Pollers {
  const log = opts.log ?? (() => {});
  const abort = new AbortController();
  const loops = opts.workers.map((w) => pollLoop(w, opts, abort.signal, log));
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        abort.abort();
        // A batch already handed to a worker is allowed to finish (bounded).
        const done = Promise.all(loops).then(() => true);
        const late = new Promise<false>((r) => setTimeout(() => r(false), 15_000).unref());
        if (!(await Promise.race([done, late]))) log('pollers: a worker was still busy after 15 s; not waiting for it');
      })();
      return stopping;
    },
  };
}

async function pollLoop(worker: PolledWorker, opts: PollersOptions, signal: AbortSignal, log: (line: string) => void): Promise<void> {
  let lastLoadError: string | undefined;
  const inFlight = new Set<Promise<void>>();
  const limit = Math.max(1, worker.batchesInFlight ?? 1);
  while (!signal.aborted) {
    if (inFlight.size >= limit) {
      await Promise.race(inFlight);
      continue;
    }
    // Load the worker before taking messages, so a broken module leaves them queued.
    let handler: SqsHandler;
    try {
      handler = await opts.loader.load(worker.id, worker.handler);
      lastLoadError = undefined;
    } catch (err) {
      const message = (err as Error)?.message ?? String(err);
      if (message !== lastLoadError) log(`${worker.id}: not polling: ${message}`);
      lastLoadError = message;
      await sleep(2_000, signal);
      continue;
    }

    let messages: Message[];
    try {
      const out = await opts.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: worker.queueUrl,
          MaxNumberOfMessages: Math.min(Math.max(worker.batchSize, 1), 10),
          WaitTimeSeconds: opts.waitTimeSeconds ?? 1,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: signal },
      );
      messages = out.Messages ?? [];
    } catch (err) {
      if (signal.aborted) break;
      log(`${worker.id}: ReceiveMessage failed: ${(err as Error)?.message ?? err}`);
      await sleep(1_000, signal);
      continue;
    }
    if (messages.length === 0) continue;

    const batch: Promise<void> = deliver(worker, messages, handler, opts, log).finally(() => inFlight.delete(batch));
    inFlight.add(batch);
  }
  await Promise.all(inFlight);
}

async function deliver(worker: PolledWorker, messages: Message[], handler: SqsHandler, opts: PollersOptions, log: (line: string) => void): Promise<void> {
  const event = toSqsEvent(messages, worker.queueArn, opts.region);
  const context = createLambdaContext({ functionName: worker.id, timeoutSeconds: worker.timeoutSeconds, region: opts.region });
  let response: unknown;
  try {
    response = await handler(event, context);
  } catch (err) {
    log(`${worker.id}: worker threw; ${messages.length} message(s) return after the visibility timeout: ${(err as Error)?.stack ?? err}`);
    return;
  }
  const acked = acknowledgedRecords(event.Records, response);
  const failed = event.Records.length - acked.length;
  if (failed > 0) log(`${worker.id}: ${failed} of ${event.Records.length} message(s) reported failed; they will be retried`);
  for (let i = 0; i < acked.length; i += 10) {
    const chunk = acked.slice(i, i + 10);
    try {
      const out = await opts.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: worker.queueUrl,
          Entries: chunk.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
        }),
      );
      for (const f of out.Failed ?? []) log(`${worker.id}: could not delete a message: ${f.Code} ${f.Message ?? ''}`);
    } catch (err) {
      log(`${worker.id}: DeleteMessageBatch failed: ${(err as Error)?.message ?? err}`);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
