/**
 * The sandbox carrier's edge: where its REST API receives requests locally, on a thread of its
 * own, forwarding each to the local API Gateway with the instant it arrived.
 *
 * A carrier stamps a dial when the request reaches it (Twilio's date_created; API Gateway's
 * `requestContext.timeEpoch` for the sandbox carrier on AWS), and an account's calls-per-second
 * ceiling is counted on those stamps. On AWS the gateway's clock owes nothing to the dialler's
 * load. Served from the API's own event loop, the stamp waited behind every callback queued
 * there (routes, workers, the sandbox's timelines): tens of milliseconds under load, added to
 * every lane's cycle. The edge's thread only stamps and forwards, so the stamp is the arrival.
 *
 * The forwarded request carries the instant (`x-edge-received-at`) and this process's edge token
 * (`x-edge-token`): the server takes the instant only with the token, and strips both.
 */
import { randomBytes } from 'node:crypto';
import { startThreadService } from './thread-service.js';

export const EDGE_RECEIVED_AT = 'x-edge-received-at';
export const EDGE_TOKEN = 'x-edge-token';

/** The token the local server accepts an edge's arrival instant with (one per process). */
export const newEdgeToken = (): string => randomBytes(16).toString('hex');

export interface CarrierEdge {
  /** e.g. http://127.0.0.1:41235 — requests here reach the local API Gateway, stamped. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * How long the edge keeps an idle connection to the API (ms). Far inside the API's own keep-alive,
 * so the API never closes one just as a dial is written on it (that dial's outcome would be unknown).
 */
const UPSTREAM_IDLE_MS = 5_000;
/** How long the local API keeps an idle connection (ms): a minute past the edge, which then always closes first. */
export const API_KEEP_ALIVE_MS = UPSTREAM_IDLE_MS + 60_000;

/** The thread's code (see thread-service.ts). */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
// Kept connections upstream: a new one would wait for the API's loop to accept it before the request is read.
const upstreamAgent = new http.Agent({ keepAlive: true, timeout: ${UPSTREAM_IDLE_MS} });
// Hop-by-hop headers stay on their hop: each side's connection is kept or closed by its own ends
// (a client's connection closed after each dial made the next one wait for its loop to connect).
const endToEnd = (headers) => {
  const out = { ...headers };
  delete out.connection;
  delete out['keep-alive'];
  return out;
};
const server = http.createServer((req, res) => {
  const receivedAt = Date.now();
  const headers = { ...endToEnd(req.headers), '${EDGE_RECEIVED_AT}': String(receivedAt), '${EDGE_TOKEN}': workerData.token };
  const upstream = http.request({ host: workerData.upstreamHost, port: workerData.upstreamPort, method: req.method, path: req.url, headers, agent: upstreamAgent }, (answer) => {
    res.writeHead(answer.statusCode, endToEnd(answer.headers));
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end('{"message":"the local API did not answer"}');
  });
  req.pipe(upstream);
});
// Dials come a lane cycle apart at most: keep their connections.
server.keepAliveTimeout = 60000;
server.on('error', (err) => parentPort.postMessage({ error: String(err) }));
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  server.close();
  server.closeAllConnections();
  upstreamAgent.destroy();
  parentPort.close();
});
`;

export async function startCarrierEdge(opts: { upstreamHost: string; upstreamPort: number; token: string }): Promise<CarrierEdge> {
  const service = await startThreadService('the carrier edge', THREAD, { upstreamHost: opts.upstreamHost, upstreamPort: opts.upstreamPort, token: opts.token });
  return { url: `http://127.0.0.1:${service.port}`, stop: service.stop };
}
