import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { envelopeBody, envelopeOf } from '../../shared/policy/webhooks/envelope.js';
import { deliveryHeaders } from '../../shared/schemas/webhook-signature.js';
import { DELIVERY_TIMEOUT_MS, deliverOnce } from '../../shared/webhooks/deliver.js';
import type { Resolver, UrlPolicy } from '../../shared/webhooks/url-policy.js';

const local: UrlPolicy = { allowLoopbackHttp: true };
const deployed: UrlPolicy = { allowLoopbackHttp: false };
const envelope = envelopeOf({ id: 'evt_1', type: 'call.completed', created_at: '2025-05-01T12:00:00.000Z', data: { note: 'café ✓', n: 1 } });
const body = envelopeBody(envelope);
const headers = deliveryHeaders(envelope, body, ['whsec_test'], new Date());

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const servers: (Server | TlsServer)[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      return new Promise((done) => server.close(done));
    }),
  );
});

/** A real HTTP server on 127.0.0.1, a free port; it records each request once its body has arrived. */
async function receiver(answer: (res: ServerResponse, req: IncomingMessage) => void) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(res, req);
    });
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return { port, received, url: `http://127.0.0.1:${port}/hook?x=1` };
}

describe('deliverOnce across a name’s addresses', () => {
  it('tries IPv4 first, and the next checked address only when the first takes no connection', async () => {
    const server = await receiver((res) => res.writeHead(200).end());
    // 127.0.0.2 is loopback but nothing listens there on this port: refused, so 127.0.0.1 is tried.
    const twoAddresses: Resolver = async () => [
      { address: '::1', family: 6 },
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const result = await deliverOnce({ url: `http://hooks.example.test:${server.port}/hook`, body, headers, policy: local, resolve: twoAddresses });
    expect(result).toMatchObject({ delivered: true, status_code: 200 });
    expect(result).not.toHaveProperty('unreachable');
    expect(server.received).toHaveLength(1);
  });

  it('does not try another address once one answered, even with an error status', async () => {
    const server = await receiver((res) => res.writeHead(500).end());
    const both: Resolver = async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const result = await deliverOnce({ url: `http://hooks.example.test:${server.port}/hook`, body, headers, policy: local, resolve: both });
    expect(result).toMatchObject({ delivered: false, status_code: 500, error: 'http_status' });
    expect(server.received).toHaveLength(1);
  });
});

describe('deliverOnce', () => {
  it('delivers on 200: the server gets the exact body and headers, once', async () => {
    const server = await receiver((res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'));
    const result = await deliverOnce({ url: server.url, body, headers, policy: local });
    expect(result).toEqual({ delivered: true, status_code: 200, error: null, detail: 'Your endpoint answered 200 OK', duration_ms: expect.any(Number) });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    expect(server.received).toHaveLength(1);
    const [got] = server.received as [Received];
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hook?x=1');
    expect(got.body).toBe(body);
    expect(got.headers).toMatchObject({
      host: `127.0.0.1:${server.port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'service-signature': headers['Service-Signature'],
      'service-event-id': 'evt_1',
      'service-event-type': 'call.completed',
      'user-agent': 'VoiceControl-Webhooks/0.1',
    });
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length); // the unicode made it through as UTF-8
  });

  it('counts any 2xx as delivered', async () => {
    const server = await receiver((res) => res.writeHead(204).end());
    expect(await deliverOnce({ url: server.url, body, headers, policy: local })).toMatchObject({
      delivered: true,
      status_code: 204,
      detail: 'Your endpoint answered 204 No Content',
    });
  });

  it('reports a 500 as http_status, in words', async () => {
    const server = await receiver((res) => res.writeHead(500).end('boom'));
    const result = await deliverOnce({ url: server.url, body, headers, policy: local });
    expect(result).toMatchObject({ delivered: false, status_code: 500, error: 'http_status', detail: 'Your endpoint answered 500 Internal Server Error' });
    expect(server.received).toHaveLength(1);
  });

  it('gives up on a server that never answers, at the deadline', async () => {
    const server = await receiver(() => {}); // reads the request, never responds
    const started = Date.now();
    const result = await deliverOnce({ url: server.url, body, headers, policy: local, timeoutMs: 300 });
    const took = Date.now() - started;
    expect(result).toMatchObject({ delivered: false, status_code: null, error: 'timeout', detail: 'No response within 300 ms' });
    expect(result.duration_ms).toBeGreaterThanOrEqual(280);
    expect(took).toBeLessThan(3000);
    expect(server.received).toHaveLength(1);
  });

  it('has a 10 second window by default', () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
  });

  it('gives up when the host name does not resolve in time', async () => {
    const never: Resolver = () => new Promise(() => {});
    const result = await deliverOnce({ url: 'https://slow-dns.example.test/', body, headers, policy: local, resolve: never, timeoutMs: 200 });
    expect(result).toMatchObject({ delivered: false, error: 'timeout', detail: expect.stringMatching(/^No response within 200 ms/) });
  });

  it('does not follow a redirect, and says where it pointed', async () => {
    const server = await receiver((res, req) => {
      if (req.url?.startsWith('/hook')) res.writeHead(302, { location: `http://${req.headers.host}/target` }).end();
      else res.writeHead(200).end();
    });
    const result = await deliverOnce({ url: server.url, body, headers, policy: local });
    expect(result).toMatchObject({
      delivered: false,
      status_code: 302,
      error: 'redirect',
      detail: `Redirects are not followed (302 to http://127.0.0.1:${server.port}/target); give the final URL instead`,
    });
    expect(server.received.map((r) => r.path)).toEqual(['/hook?x=1']);
  });

  it('reports a refused connection (a closed port)', async () => {
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    const result = await deliverOnce({ url: `http://127.0.0.1:${port}/hook`, body, headers, policy: local });
    expect(result).toMatchObject({ delivered: false, status_code: null, error: 'connection_error', detail: 'Could not connect: ECONNREFUSED' });
  });

  it('reports a connection dropped before any response', async () => {
    const server = await receiver((_res, req) => req.socket.destroy());
    const result = await deliverOnce({ url: server.url, body, headers, policy: local });
    expect(result).toMatchObject({
      delivered: false,
      status_code: null,
      error: 'connection_error',
      detail: expect.stringMatching(/^The connection closed before a response: /),
    });
    expect(server.received).toHaveLength(1);
  });

  it('connects to the address it checked, with the original Host (no second DNS lookup)', async () => {
    const server = await receiver((res) => res.writeHead(200).end());
    const asked: string[] = [];
    // Only this fake knows the name; a second lookup through the system resolver would fail (ENOTFOUND),
    // and a second call to this one would rebind the name to a metadata address.
    const rebinding: Resolver = async (hostname) => {
      asked.push(hostname);
      return asked.length === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '169.254.169.254', family: 4 }];
    };
    const result = await deliverOnce({ url: `http://hooks.example.test:${server.port}/hook`, body, headers, policy: local, resolve: rebinding });
    expect(result).toMatchObject({ delivered: true, status_code: 200 });
    expect(asked).toEqual(['hooks.example.test']);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]!.headers.host).toBe(`hooks.example.test:${server.port}`);
  });

  it('re-checks the URL at delivery: under the deployed policy nothing is sent', async () => {
    const server = await receiver((res) => res.writeHead(200).end());
    const refused = await deliverOnce({ url: server.url, body, headers, policy: deployed });
    expect(refused).toMatchObject({ delivered: false, status_code: null, error: 'url_not_allowed', detail: 'Webhook URLs must use https://' });
    const toLoopbackByName = await deliverOnce({
      url: `https://hooks.example.test:${server.port}/hook`,
      body,
      headers,
      policy: deployed,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(toLoopbackByName).toMatchObject({
      error: 'url_not_allowed',
      detail: 'hooks.example.test resolves to 127.0.0.1, which is a loopback address; webhooks may only go to public addresses',
    });
    // The server is up and counting: one allowed delivery afterwards is the only request it saw.
    expect(await deliverOnce({ url: server.url, body, headers, policy: local })).toMatchObject({ delivered: true });
    expect(server.received).toHaveLength(1);
  });

  it('reads at most 64 KB of the response body and does not wait for the rest', async () => {
    const server = await receiver((res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.on('error', () => {});
      res.write(Buffer.alloc(1024 * 1024, 0x61)); // a megabyte, and the response never ends
    });
    const started = Date.now();
    const result = await deliverOnce({ url: server.url, body, headers, policy: local, timeoutMs: 5000 });
    expect(result).toMatchObject({ delivered: true, status_code: 200, error: null });
    expect(Date.now() - started).toBeLessThan(4000); // well before the 5 s deadline it would otherwise wait for
  });

  it('never throws, even on a header Node refuses to send', async () => {
    const server = await receiver((res) => res.writeHead(200).end());
    const result = await deliverOnce({ url: server.url, body, headers: { ...headers, 'x-bad': 'a\r\nb' }, policy: local });
    expect(result).toMatchObject({ delivered: false, error: 'connection_error', detail: expect.stringMatching(/^Could not send the request: /) });
    expect(server.received).toHaveLength(0);
  });
});

describe('deliverOnce over https', () => {
  it('sends the checked name as TLS SNI while connecting to the pinned address', async () => {
    // A TLS server with no certificate at all: it records the SNI name, then refuses the handshake.
    const sni: string[] = [];
    const server = createTlsServer({
      SNICallback: (name, done) => {
        sni.push(name);
        done(new Error('no certificate here'));
      },
    });
    server.on('tlsClientError', () => {});
    servers.push(server);
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.address() as AddressInfo;
    const asked: string[] = [];
    const resolve: Resolver = async (hostname) => (asked.push(hostname), [{ address: '127.0.0.1', family: 4 }]);
    const result = await deliverOnce({ url: `https://hooks.example.test:${port}/hook`, body, headers, policy: local, resolve });
    expect(result).toMatchObject({ delivered: false, status_code: null, error: 'connection_error', detail: expect.stringMatching(/^Could not connect: /) });
    expect(sni).toEqual(['hooks.example.test']);
    expect(asked).toEqual(['hooks.example.test']);
  });

  it('explains a TLS failure in words', async () => {
    const server = await receiver((res) => res.writeHead(200).end()); // plain http: the TLS handshake cannot succeed
    const result = await deliverOnce({ url: `https://127.0.0.1:${server.port}/hook`, body, headers, policy: local });
    expect(result).toMatchObject({
      delivered: false,
      error: 'connection_error',
      detail: expect.stringMatching(/^Could not connect: \S+ \(the TLS handshake failed; /),
    });
    expect(server.received).toHaveLength(0);
  });
});

describe('deliverOnce with a broken resolver', () => {
  it('turns a resolver that throws something odd into a result, not an exception', async () => {
    const broken = (async () => null) as unknown as Resolver;
    const result = await deliverOnce({ url: 'https://hooks.example.test/', body, headers, policy: deployed, resolve: broken });
    expect(result).toMatchObject({
      delivered: false,
      status_code: null,
      error: 'connection_error',
      detail: expect.stringMatching(/^Could not send the request: /),
    });
  });
});
