/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: it records every request (raw body
 * and headers) and answers as the test says — a status, a delay, or a status per attempt.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  body: string;
  headers: IncomingHttpHeaders;
  at: number;
  /** When the answer was sent (undefined while the request is still pending). */
  answeredAt?: number;
}

export type Behaviour = (req: Received, nth: number) => { status: number; delayMs?: number };

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests whose body names this event id. */
  forEvent(eventId: string): Received[];
  answer(behaviour: Behaviour): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let behaviour: Behaviour = () => ({ status: 200 });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now() };
      received.push(r);
      const { status, delayMs } = behaviour(r, received.length);
      const reply = () => {
        if (res.destroyed) return;
        r.answeredAt = Date.now();
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      };
      if (delayMs) setTimeout(reply, delayMs).unref();
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    forEvent: (eventId) => received.filter((r) => r.body.includes(`"id":"${eventId}"`)),
    answer: (b) => {
      behaviour = b;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
