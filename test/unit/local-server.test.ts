import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { newEdgeToken, startCarrierEdge } from '../../infra/local/carrier-edge.js';
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

  it("through the carrier edge a request is stamped when it reaches the edge's thread, though the API's event loop is busy; an edge instant without the token is ignored", async () => {
    const seen: { timeEpoch: number; headers: Record<string, string | undefined> }[] = [];
    const handler: HttpHandler = async (event) => {
      seen.push({ timeEpoch: event.requestContext.timeEpoch, headers: event.headers });
      return { statusCode: 201, body: '{}' };
    };
    const token = newEdgeToken();
    const server = createHttpServer({
      routes: [{ id: 'dial', method: 'POST', path: '/dial', handler: 'unused' }],
      loader: { load: async () => handler },
      edgeToken: token,
    });
    const port = await listen(server, 0);
    const edge = await startCarrierEdge({ upstreamHost: '127.0.0.1', upstreamPort: port, token });
    stop = async () => {
      await edge.stop();
      await closeServer(server);
    };
    /** A POST whose sender then keeps this thread (the API's) busy for 300 ms: the instant it was sent. */
    const sendThenBlock = async (url: string, headers: Record<string, string> = {}) => {
      let sentAt = 0;
      const answered = new Promise<number>((resolve, reject) => {
        const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{}', () => {
          sentAt = Date.now();
          while (Date.now() - sentAt < 300); // the API's loop, busy
        });
      });
      expect(await answered).toBe(201);
      return sentAt;
    };
    // Warm the edge's connection, so the request below is written at once.
    await sendThenBlock(`${edge.url}/dial`);
    const viaEdge = await sendThenBlock(`${edge.url}/dial`);
    expect(seen.at(-1)!.timeEpoch - viaEdge).toBeLessThan(150);
    expect(seen.at(-1)!.headers).not.toHaveProperty('x-edge-received-at');
    expect(seen.at(-1)!.headers).not.toHaveProperty('x-edge-token');
    // The edge keeps its client's connection, and its own to the API: a dial is written at once, no connect first, on either hop.
    let upstreamConnections = 0;
    server.on('connection', () => upstreamConnections++);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const reused: boolean[] = [];
    for (let i = 0; i < 2; i++) {
      const answer = await new Promise<{ connection?: string }>((resolve, reject) => {
        const req = request(`${edge.url}/dial`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          reused.push(req.reusedSocket);
          res.resume();
          res.on('end', () => resolve({ connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end('{}');
      });
      expect(answer.connection).not.toBe('close');
    }
    agent.destroy();
    expect(reused).toEqual([false, true]);
    expect(upstreamConnections).toBe(0);
    // Straight to the API, the stamp waits for its loop; a client's own edge instant, without the token, counts for nothing.
    const direct = await sendThenBlock(`http://127.0.0.1:${port}/dial`, { 'x-edge-received-at': '1000', 'x-edge-token': 'guess' });
    expect(seen.at(-1)!.timeEpoch - direct).toBeGreaterThanOrEqual(290);
    expect(seen.at(-1)!.headers).not.toHaveProperty('x-edge-token');
  });
});
