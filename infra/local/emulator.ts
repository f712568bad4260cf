/**
 * The SQS/S3 emulator (fauxqs) on a free loopback port, on a thread of its own.
 *
 * On AWS, SQS and S3 are other machines: a SendMessage costs the Lambda its round trip, never
 * the queue's own work. On the API's event loop the emulator's request handling (parsing,
 * long polls, deliveries) ran between the API's own callbacks, so a queue's work delayed a
 * dial's send and a request's answer; its thread keeps it beside them, as on AWS.
 *
 * `startFauxqs()` always binds 0.0.0.0, which would expose the queues to the local network;
 * building the app ourselves lets us listen on 127.0.0.1 only.
 */
import { Worker } from 'node:worker_threads';

export interface Emulator {
  /** e.g. http://127.0.0.1:41234 — the SQS and S3 endpoint. */
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * The thread's code: plain JavaScript evaluated by the worker (it needs no loader, so it runs
 * the same under tsx, vitest and node). It answers `{ port }` once listening, or `{ error }`;
 * `'stop'` closes the app and ends the thread.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
import('fauxqs').then(async ({ buildApp }) => {
  const app = buildApp({ logger: false, defaultRegion: workerData.region });
  await app.listen({ port: workerData.port, host: '127.0.0.1' });
  parentPort.on('message', async (m) => {
    if (m !== 'stop') return;
    await app.close();
    parentPort.close();
  });
  parentPort.postMessage({ port: app.server.address().port });
}).catch((err) => parentPort.postMessage({ error: String(err && err.stack || err) }));
`;

/** How long a stop waits for the app to close before ending its thread. */
const STOP_GRACE_MS = 2_000;

export async function startEmulator(opts: { port?: number; region?: string } = {}): Promise<Emulator> {
  const worker = new Worker(THREAD, { eval: true, workerData: { port: opts.port ?? 0, region: opts.region ?? 'us-east-1' } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the SQS emulator's thread ended before listening (exit ${code})`)));
    worker.once('message', (m: { port?: number; error?: string }) =>
      m.port ? resolve(m.port) : reject(new Error(`the SQS emulator did not start: ${m.error}`)),
    );
  });
  worker.removeAllListeners();
  // A thread that fails later ends the queues, which the stack's callers then see as refused requests.
  worker.on('error', (err: Error) => console.error(`the SQS emulator's thread failed: ${err.message}`));
  // An emulator left running must not hold the process open (the stack's stop ends it first).
  worker.unref();
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: () =>
      (stopping ??= new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
        // A long poll still open keeps the app closing until it answers: the queues are in memory, nothing to flush.
        setTimeout(() => void worker.terminate(), STOP_GRACE_MS).unref();
      })),
  };
}
