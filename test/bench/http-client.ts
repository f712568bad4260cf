/**
 * The client the benches time the local API with: node:http over one keep-alive agent.
 *
 * The client shares the event loop with the API under test (one process), so its own CPU is
 * counted as the route's latency. undici's `fetch` spent about 0.8 ms of that loop per request
 * on the 2-core machine (its WHATWG streams and promise hops), a tenth of a POST /v1/calls; a
 * real client runs on another machine. This client does what any HTTP/1.1 library does (one
 * write, the body collected from its chunks) and little else, so what is timed is the API.
 */
import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export interface JsonAnswer {
  status: number;
  /** The parsed body; undefined when it was empty. */
  json: unknown;
}

/** Sends `body` (JSON-encoded unless a string) and parses the JSON answer. */
export function requestJson(
  baseUrl: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<JsonAnswer> {
  const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers = { ...opts.headers, ...(payload === undefined ? {} : { 'content-length': String(Buffer.byteLength(payload)) }) };
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, json: text === '' ? undefined : JSON.parse(text) });
        } catch (err) {
          reject(new Error(`${method} ${path} answered ${res.statusCode} with a body that is not JSON: ${(err as Error).message}`));
        }
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
