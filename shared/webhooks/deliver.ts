/**
 * One delivery attempt of one webhook: a single POST, pinned to a checked address.
 *
 * The URL is checked again here (url-policy.ts) after a DNS resolution (a successful check of
 * the system resolver's answer is reused for CHECK_TTL_MS), and the connection goes to a
 * checked address (IPv4 first; the next one only when no connection could be made). Connections
 * are kept alive, in a pool per (scheme, host, port, checked address) whose every new socket is
 * opened through a `lookup` answering that address only: a pooled connection only ever leads to
 * an address that passed the check, and a second lookup cannot rebind the name to an internal
 * address; Host, TLS SNI and certificate checks still use the URL's host name. A request on a
 * pooled connection the server had just closed (reset before any response) is sent once more on
 * a fresh one. Redirects are not followed. One
 * deadline (timeoutMs, from the call) bounds resolution, connect and the response status;
 * at most 64 KB of the response body is read and thrown away. duration_ms runs from the
 * call to the response status (or to the failure). It never throws: every outcome is a
 * DeliveryResult whose `detail` a tenant can act on.
 */
import http, { STATUS_CODES } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { checkWebhookUrl, type Resolver, systemResolver, type UrlCheck, type UrlPolicy } from './url-policy.js';

export interface DeliveryResult {
  delivered: boolean;
  status_code: number | null;
  duration_ms: number;
  error: null | 'url_not_allowed' | 'timeout' | 'connection_error' | 'redirect' | 'http_status';
  detail: string;
}

export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * One address's answer; `unreachable`: no connection could be made, so nothing was sent there;
 * `stale`: a pooled connection was reset before any response (the server closed it idle).
 */
type Attempt = DeliveryResult & { unreachable?: boolean; stale?: boolean };

/** A successful URL check (DNS answer included) is reused this long; a refusal never is. */
const CHECK_TTL_MS = 30_000;
/** Connections one process keeps open to one endpoint address; more requests wait in the pool. */
export const SOCKETS_PER_ADDRESS = 20;
/** An idle pooled connection is closed after this (under the usual 5 s server keep-alive). */
const IDLE_SOCKET_MS = 4_000;
const MAX_POOLS = 256;

const checks = new WeakMap<Resolver, Map<string, { check: Promise<UrlCheck>; until: number }>>();

/** checkWebhookUrl, its successes remembered per resolver for CHECK_TTL_MS. */
function checkedUrl(raw: string, policy: UrlPolicy, resolve: Resolver): Promise<UrlCheck> {
  const byUrl = checks.get(resolve) ?? new Map<string, { check: Promise<UrlCheck>; until: number }>();
  checks.set(resolve, byUrl);
  const key = `${policy.allowLoopbackHttp}|${raw}`;
  const hit = byUrl.get(key);
  if (hit && hit.until > performance.now()) return hit.check;
  const check = checkWebhookUrl(raw, policy, resolve);
  const until = performance.now() + CHECK_TTL_MS;
  byUrl.set(key, { check, until });
  if (byUrl.size > MAX_POOLS) byUrl.delete(byUrl.keys().next().value!);
  check.then(
    (c) => !c.ok && byUrl.get(key)?.check === check && byUrl.delete(key),
    () => byUrl.get(key)?.check === check && byUrl.delete(key),
  );
  return check;
}

const pools = new Map<string, http.Agent>();

/** The keep-alive pool for one checked address of a URL (least recently used pools are closed beyond MAX_POOLS). */
function poolFor(url: URL, pinned: { address: string; family: 4 | 6 }): http.Agent {
  const key = `${url.protocol}//${url.host}|${pinned.address}`;
  const found = pools.get(key);
  if (found) {
    pools.delete(key);
    pools.set(key, found);
    return found;
  }
  // The name was resolved and checked already: every socket of this pool is opened to that address only.
  const lookup: LookupFunction = (_name, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  const options = { keepAlive: true, maxSockets: SOCKETS_PER_ADDRESS, maxFreeSockets: SOCKETS_PER_ADDRESS, timeout: IDLE_SOCKET_MS, lookup };
  const agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  pools.set(key, agent);
  if (pools.size > MAX_POOLS) {
    const [oldest, pool] = pools.entries().next().value!;
    pools.delete(oldest);
    pool.destroy();
  }
  return agent;
}
const MAX_RESPONSE_BYTES = 64 * 1024;
const TLS_FAILURE = /CERT|SSL|TLS|^EPROTO$|^UNABLE_TO_/;
const TLS_HINT = ' (the TLS handshake failed; check that the endpoint serves https with a valid certificate for its name)';

export async function deliverOnce(opts: {
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: UrlPolicy;
  resolve?: Resolver;
  timeoutMs?: number;
}): Promise<DeliveryResult> {
  const started = performance.now();
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const elapsed = () => Math.round(performance.now() - started);
  const result = (r: Omit<Attempt, 'duration_ms'>): Attempt => ({ ...r, duration_ms: elapsed() });
  const timedOut = (what: string) =>
    result({ delivered: false, status_code: null, error: 'timeout', detail: `No response within ${inWords(timeoutMs)}${what}` });

  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'deadline')));
    const checking = checkedUrl(opts.url, opts.policy, opts.resolve ?? systemResolver);
    checking.catch(() => {}); // if the deadline wins, a late failure has nobody to tell
    const check = await Promise.race([checking, deadline]);
    if (check === 'deadline') return timedOut(' (the host name did not resolve in time)');
    clearTimeout(timer);
    if (!check.ok) return result({ delivered: false, status_code: null, error: 'url_not_allowed', detail: check.reason });
    // Every address was checked; IPv4 first (a Lambda function has no IPv6 route by default),
    // and the next one when a connection cannot even be made, within the one deadline.
    const addresses = [...check.addresses].sort((a, b) => a.family - b.family);
    let last: Attempt | undefined;
    for (const address of addresses) {
      const remaining = timeoutMs - (performance.now() - started);
      if (remaining <= 0) return last ?? timedOut('');
      last = await post(check.url, address, opts.body, opts.headers, remaining, result, timedOut);
      if (last.stale) last = await post(check.url, address, opts.body, opts.headers, timeoutMs - (performance.now() - started), result, timedOut);
      if (!last.unreachable) break;
    }
    const { unreachable: _unreachable, stale: _stale, ...answer } = last!;
    return answer;
  } catch (err) {
    return result({ delivered: false, status_code: null, error: 'connection_error', detail: `Could not send the request: ${describe(err)}` });
  } finally {
    clearTimeout(timer);
  }
}

function post(
  url: URL,
  pinned: { address: string; family: 4 | 6 },
  body: string,
  extraHeaders: Record<string, string>,
  remainingMs: number,
  result: (r: Omit<Attempt, 'duration_ms'>) => Attempt,
  timedOut: (what: string) => Attempt,
): Promise<Attempt> {
  return new Promise((settle) => {
    let outcome: Attempt | undefined;
    let connected = false;
    let timer: NodeJS.Timeout | undefined;
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const isHttps = url.protocol === 'https:';
    const headers: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(extraHeaders)) {
      if (!['host', 'content-length', 'connection', 'transfer-encoding'].includes(name.toLowerCase())) headers[name] = value;
    }
    headers.host = url.host;
    headers['content-length'] = Buffer.byteLength(body, 'utf8');

    // `destroy`: the connection cannot be reused (a deadline, an error, a body left unread).
    let settled = false;
    const finish = (r: Attempt, destroy = true) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (destroy) req.destroy();
      settle(r);
    };

    const req = (isHttps ? https : http).request({
      method: 'POST',
      protocol: url.protocol,
      hostname,
      port: url.port ? Number(url.port) : isHttps ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      headers,
      agent: poolFor(url, pinned),
      ...(isHttps && !isIP(hostname) ? { servername: hostname } : {}),
    });

    timer = setTimeout(() => finish(outcome ?? timedOut('')), Math.max(0, remainingMs));

    req.on('socket', (socket) => {
      if (req.reusedSocket) connected = true;
      else socket.once(isHttps ? 'secureConnect' : 'connect', () => (connected = true));
    });

    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      outcome = result(judge(status, res.headers.location));
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= MAX_RESPONSE_BYTES) finish(outcome!);
      });
      res.on('end', () => finish(outcome!, false)); // read to the end: the connection goes back to its pool
      res.on('error', () => finish(outcome!));
      res.on('close', () => finish(outcome!));
    });

    req.on('error', (err) => {
      if (outcome) return finish(outcome);
      const code = describe(err);
      if (req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) {
        return finish({
          ...result({ delivered: false, status_code: null, error: 'connection_error', detail: `The connection closed before a response: ${code}` }),
          stale: true,
        });
      }
      finish(
        result({
          delivered: false,
          status_code: null,
          error: 'connection_error',
          detail: connected
            ? `The connection closed before a response: ${code}`
            : `Could not connect: ${code}${isHttps && TLS_FAILURE.test(code) ? TLS_HINT : ''}`,
          // Another checked address may answer: nothing was sent to this one.
          ...(connected || TLS_FAILURE.test(code) ? {} : { unreachable: true }),
        }),
      );
    });

    req.end(body, 'utf8');
  });
}

function judge(status: number, location: string | string[] | undefined): Omit<DeliveryResult, 'duration_ms'> {
  const answered = `Your endpoint answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
  if (status >= 200 && status < 300) return { delivered: true, status_code: status, error: null, detail: answered };
  if (status >= 300 && status < 400) {
    const target = typeof location === 'string' && location ? ` to ${printable(location)}` : '';
    return { delivered: false, status_code: status, error: 'redirect', detail: `Redirects are not followed (${status}${target}); give the final URL instead` };
  }
  return { delivered: false, status_code: status, error: 'http_status', detail: answered };
}

const inWords = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} second${ms === 1000 ? '' : 's'}` : `${ms} ms`);

const printable = (s: string) => {
  const clean = s.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
};

function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.message === 'string' && e.message ? e.message : String(err);
}
