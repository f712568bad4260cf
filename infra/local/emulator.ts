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
import { startThreadService } from './thread-service.js';

export interface Emulator {
  /** e.g. http://127.0.0.1:41234 — the SQS and S3 endpoint. */
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** The thread's code (see thread-service.ts). */
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

export async function startEmulator(opts: { port?: number; region?: string } = {}): Promise<Emulator> {
  const service = await startThreadService('the SQS emulator', THREAD, { port: opts.port ?? 0, region: opts.region ?? 'us-east-1' });
  return { endpoint: `http://127.0.0.1:${service.port}`, port: service.port, stop: service.stop };
}
