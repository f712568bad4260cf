/**
 * A loopback service on a thread of its own (the SQS emulator, the carrier edge): on AWS these
 * are other machines, so their work must not queue behind the API's callbacks locally.
 *
 * `code` is plain JavaScript evaluated by the worker (no loader needed under tsx, vitest or node):
 * it posts `{ port }` once listening (or `{ error }`), and on the message `'stop'` closes what it
 * holds so the thread ends.
 */
import { Worker } from 'node:worker_threads';

export interface ThreadService {
  readonly port: number;
  stop(): Promise<void>;
}

/** How long a stop waits for the service to close before ending its thread (a long poll still open keeps it closing). */
const STOP_GRACE_MS = 2_000;

export async function startThreadService(name: string, code: string, workerData: Record<string, unknown>): Promise<ThreadService> {
  const worker = new Worker(code, { eval: true, workerData });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`${name}: its thread ended before listening (exit ${code})`)));
    worker.once('message', (m: { port?: number; error?: string }) => (m.port ? resolve(m.port) : reject(new Error(`${name} did not start: ${m.error}`))));
  });
  worker.removeAllListeners();
  // A thread that fails later ends its service, which its callers then see as refused requests.
  worker.on('error', (err: Error) => console.error(`${name}: its thread failed: ${err.message}`));
  // A service left running must not hold the process open (the stack's stop ends it first).
  worker.unref();
  let stopping: Promise<void> | undefined;
  return {
    port,
    stop: () =>
      (stopping ??= new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
        setTimeout(() => void worker.terminate(), STOP_GRACE_MS).unref();
      })),
  };
}
