/**
 * The in-process SQS/S3 emulator (fauxqs) on a free loopback port.
 *
 * `startFauxqs()` always binds 0.0.0.0, which would expose the queues to the local
 * network; building the app ourselves lets us listen on 127.0.0.1 only.
 */
import { buildApp } from 'fauxqs';

export interface Emulator {
  /** e.g. http://127.0.0.1:41234 — the SQS and S3 endpoint. */
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}

export async function startEmulator(opts: { port?: number; region?: string } = {}): Promise<Emulator> {
  const app = buildApp({ logger: false, defaultRegion: opts.region ?? 'us-east-1' });
  await app.listen({ port: opts.port ?? 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: () => (stopping ??= app.close().then(() => undefined)),
  };
}
