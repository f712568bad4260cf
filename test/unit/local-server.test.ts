import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer, createHttpServer, type HttpHandler, listen } from '../../infra/local/server.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('local API Gateway', () => {
  it('stamps requestContext.timeEpoch when the request arrives, not when its body is read or its handler runs', async () => {
    let seen: { timeEpoch: number; handlerAt: number } | undefined;
    const handler: HttpHandler = async (event) => {
      seen = { timeEpoch: event.requestContext.timeEpoch, handlerAt: Date.now() };
      return { statusCode: 204 };
    };
    const server = createHttpServer({
      routes: [{ id: 'stamp', method: 'POST', path: '/stamp', handler: 'unused' }],
      loader: { load: async () => handler },
    });
    const port = await listen(server, 0);
    stop = () => closeServer(server);

    // The headers go first; the body 500 ms later, as a slow client's would.
    const headersSentAt = Date.now();
    let bodySentAt = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ port, method: 'POST', path: '/stamp', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.flushHeaders();
      setTimeout(() => {
        bodySentAt = Date.now();
        req.end('{}');
      }, 500);
    });
    expect(status).toBe(204);
    expect(seen!.timeEpoch).toBeGreaterThanOrEqual(headersSentAt);
    expect(seen!.timeEpoch).toBeLessThan(bodySentAt);
    expect(seen!.handlerAt).toBeGreaterThanOrEqual(bodySentAt);
  });
});
