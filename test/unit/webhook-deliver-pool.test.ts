/**
 * deliverOnce's kept-alive connections: reused for the same checked address, and never a way
 * around the URL check — a name that now resolves to a private address is refused even while
 * a pooled connection to its old (checked) address is open, and nothing reaches the server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverOnce } from '../../shared/webhooks/deliver.js';
import type { Resolver, UrlPolicy } from '../../shared/webhooks/url-policy.js';

const local: UrlPolicy = { allowLoopbackHttp: true };
const deployed: UrlPolicy = { allowLoopbackHttp: false };
const body = '{"id":"evt_1"}';
const headers = { 'content-type': 'application/json' };

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((done) => server.close(done));
    }),
  );
});

/** A 127.0.0.1 server counting the connections it accepted and the requests it answered. */
async function server(opts: { closeEach?: boolean } = {}) {
  const seen = { connections: 0, requests: 0, ports: new Set<number>() };
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.requests++;
      seen.ports.add((req.socket as Socket).remotePort!);
      res.writeHead(200, opts.closeEach ? { connection: 'close' } : {}).end('ok');
    });
  });
  s.on('connection', () => seen.connections++);
  servers.push(s);
  await new Promise<void>((listening) => s.listen(0, '127.0.0.1', listening));
  return { port: (s.address() as AddressInfo).port, seen };
}

/** A fresh resolver each time: a successful check is remembered per resolver. */
const resolvesTo =
  (address: string): Resolver =>
  async () => [{ address, family: 4 }];

describe('deliverOnce on kept-alive connections', () => {
  it('sends consecutive POSTs to one checked address over one connection', async () => {
    const s = await server();
    const resolve = resolvesTo('127.0.0.1');
    for (let i = 0; i < 3; i++) {
      expect(await deliverOnce({ url: `http://pool-a.example.test:${s.port}/hook`, body, headers, policy: local, resolve })).toMatchObject({
        delivered: true,
        status_code: 200,
      });
    }
    expect(s.seen.requests).toBe(3);
    expect(s.seen.connections).toBe(1);
  });

  it('refuses a name that now resolves to a private address, although a pooled connection to its checked address is open', async () => {
    const s = await server();
    const url = `http://pool-b.example.test:${s.port}/hook`;
    expect(await deliverOnce({ url, body, headers, policy: local, resolve: resolvesTo('127.0.0.1') })).toMatchObject({ delivered: true });
    expect(s.seen.connections).toBe(1);

    for (const address of ['10.0.0.7', '169.254.169.254', '192.168.1.20']) {
      const refused = await deliverOnce({ url, body, headers, policy: local, resolve: resolvesTo(address) });
      expect(refused, address).toMatchObject({ delivered: false, status_code: null, error: 'url_not_allowed' });
    }
    // Under the deployed policy even the loopback address it used is refused.
    expect(await deliverOnce({ url, body, headers, policy: deployed, resolve: resolvesTo('127.0.0.1') })).toMatchObject({ error: 'url_not_allowed' });
    expect(s.seen.requests).toBe(1);
  });

  it('never sends to an address other than the one checked: a name resolving elsewhere gets a pool of its own', async () => {
    const s = await server();
    // 127.0.0.2 is loopback too, but nothing listens there on this port: the pooled 127.0.0.1 connection is not borrowed.
    const result = await deliverOnce({ url: `http://pool-c.example.test:${s.port}/hook`, body, headers, policy: local, resolve: resolvesTo('127.0.0.1') });
    expect(result.delivered).toBe(true);
    const elsewhere = await deliverOnce({ url: `http://pool-c.example.test:${s.port}/hook`, body, headers, policy: local, resolve: resolvesTo('127.0.0.2') });
    expect(elsewhere).toMatchObject({ delivered: false, error: 'connection_error' });
    expect(s.seen.requests).toBe(1);
  });

  it('delivers to a server that closes every connection after its answer', async () => {
    const s = await server({ closeEach: true });
    const resolve = resolvesTo('127.0.0.1');
    for (let i = 0; i < 3; i++) {
      expect(await deliverOnce({ url: `http://pool-d.example.test:${s.port}/hook`, body, headers, policy: local, resolve })).toMatchObject({ delivered: true });
    }
    expect(s.seen.requests).toBe(3);
    expect(s.seen.connections).toBe(3);
  });
});
