/**
 * Where a webhook may be sent (SSRF rules), as a pure module: the resolver is injected.
 *
 * A tenant's endpoint URL is untrusted. It must be https, carry no credentials, and every
 * address its host stands for must be public: never loopback, private, link-local,
 * unique-local, a cloud metadata service, multicast or reserved. This runs when the URL is
 * saved and again at every delivery after DNS resolution (deliver.ts then connects to the
 * checked address itself, so a second lookup cannot swap it). The local runtime may allow
 * plain http to loopback, for developers' own receivers (WEBHOOK_ALLOW_LOOPBACK_HTTP=true).
 *
 * Addresses are classified by hand from their bits, failing closed: an IPv6 address
 * outside 2000::/3 or anything unparseable is `reserved`, and IPv6 forms that embed an
 * IPv4 address (mapped, compatible, translated, NAT64, 6to4) are judged by that address.
 */
import { lookup } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';

export interface UrlPolicy {
  allowLoopbackHttp: boolean;
}

export function webhookUrlPolicy(env: NodeJS.ProcessEnv = process.env): UrlPolicy {
  return { allowLoopbackHttp: env.WEBHOOK_ALLOW_LOOPBACK_HTTP === 'true' };
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'unique_local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved';

export function classifyAddress(ip: string): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIPv4(bare)) return classifyV4(v4ToNumber(bare));
  const withoutZone = bare.split('%')[0]!;
  if (isIPv6(withoutZone)) {
    const groups = v6Groups(withoutZone);
    if (groups) return classifyV6(groups);
  }
  return 'reserved';
}

export type UrlCheck = { ok: true; url: URL; addresses: { address: string; family: 4 | 6 }[] } | { ok: false; reason: string };

const MAX_WEBHOOK_URL_LENGTH = 2048;

export async function checkWebhookUrl(raw: string, policy: UrlPolicy, resolve: Resolver = systemResolver): Promise<UrlCheck> {
  const no = (reason: string): UrlCheck => ({ ok: false, reason });
  if (typeof raw !== 'string' || raw.trim() === '') return no('The webhook URL is empty; give an absolute https:// URL');
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return no(`The webhook URL is ${raw.length} characters long; at most ${MAX_WEBHOOK_URL_LENGTH} are allowed`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return no('The webhook URL is not an absolute URL; give one like https://hooks.example.com/voice');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return no(`Webhook URLs must start with https:// (not ${url.protocol}//)`);
  if (url.username || url.password)
    return no('The webhook URL may not contain a user name or password (user:pass@); authenticate deliveries by their signature instead');
  if (url.protocol === 'http:' && !policy.allowLoopbackHttp) return no('Webhook URLs must use https://');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!host) return no('The webhook URL has no host name');

  let addresses: { address: string; family: 4 | 6 }[];
  const literal = isIPv4(host) ? 4 : isIPv6(host) ? 6 : 0;
  if (literal) {
    addresses = [{ address: host, family: literal }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      const code = (err as { code?: unknown })?.code;
      return no(`${host} does not resolve${typeof code === 'string' ? ` (${code})` : ''}; check the host name, or its DNS records`);
    }
    if (addresses.length === 0) return no(`${host} does not resolve to any address; check the host name, or its DNS records`);
  }

  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (kind === 'public' || (kind === 'loopback' && policy.allowLoopbackHttp)) continue;
    const what = literal ? `${address} is ${DESCRIBED[kind]}` : `${host} resolves to ${address}, which is ${DESCRIBED[kind]}`;
    return no(`${what}; webhooks may only go to public addresses`);
  }
  if (url.protocol === 'http:' && !addresses.every(({ address }) => classifyAddress(address) === 'loopback')) {
    return no('Webhook URLs must use https://; plain http:// is only allowed to a loopback address, in local development');
  }
  return { ok: true, url, addresses };
}

const DESCRIBED: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private network address',
  link_local: 'a link-local address',
  unique_local: 'a unique local (private) IPv6 address',
  metadata: 'a cloud metadata address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved or documentation address',
};

// ---- IPv4 ----

const v4ToNumber = (ip: string): number => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);

/** `a.b.c.d/bits` contains n. */
const inV4 = (n: number, cidr: string): boolean => {
  const [base, bits] = cidr.split('/') as [string, string];
  const size = 2 ** (32 - Number(bits));
  return Math.floor(n / size) === Math.floor(v4ToNumber(base) / size);
};

const V4_METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200'].map(v4ToNumber); // AWS/GCP/Azure IMDS, ECS task metadata, Alibaba IMDS

const V4_RANGES: [string, AddressClass][] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'private'], // carrier-grade NAT
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'reserved'], // TEST-NET-1
  ['192.88.99.0/24', 'reserved'], // 6to4 relay anycast (deprecated)
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'], // benchmarking
  ['198.51.100.0/24', 'reserved'], // TEST-NET-2
  ['203.0.113.0/24', 'reserved'], // TEST-NET-3
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // includes 255.255.255.255 (broadcast)
];

function classifyV4(n: number): AddressClass {
  if (V4_METADATA.includes(n)) return 'metadata';
  for (const [cidr, kind] of V4_RANGES) if (inV4(n, cidr)) return kind;
  return 'public';
}

// ---- IPv6 ----

/** The eight 16-bit groups of a valid IPv6 address (dotted IPv4 tail allowed), or null. */
function v6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4ToNumber(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

const v4Of = (hi: number, lo: number): number => hi * 0x10000 + lo;
const zero = (groups: number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);

function classifyV6(g: number[]): AddressClass {
  const [g0, g1, g2, , g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  if (zero(g, 0, 8)) return 'unspecified';
  if (zero(g, 0, 7) && g7 === 1) return 'loopback';
  if (zero(g, 0, 5) && g5 === 0xffff) return classifyV4(v4Of(g6, g7)); // ::ffff:a.b.c.d, IPv4-mapped
  if (zero(g, 0, 6)) return classifyV4(v4Of(g6, g7)); // ::a.b.c.d, IPv4-compatible (deprecated)
  if (zero(g, 0, 4) && g4 === 0xffff && g5 === 0) return classifyV4(v4Of(g6, g7)); // ::ffff:0:a.b.c.d, IPv4-translated
  if (g0 === 0x64 && g1 === 0xff9b && zero(g, 2, 6)) return classifyV4(v4Of(g6, g7)); // 64:ff9b::/96, NAT64
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'reserved'; // 64:ff9b:1::/48, local-use NAT64
  if (g0 === 0x2002) return classifyV4(v4Of(g1, g2)); // 6to4: judged by the IPv4 it tunnels to
  if (g0 === 0xfd00 && g1 === 0x0ec2 && zero(g, 2, 7) && g7 === 0x254) return 'metadata'; // AWS IMDS over IPv6
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local'; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // fec0::/10, site-local (deprecated)
  if ((g0 & 0xfe00) === 0xfc00) return 'unique_local'; // fc00::/7
  if ((g0 & 0xff00) === 0xff00) return 'multicast'; // ff00::/8
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved'; // 2001:db8::/32, documentation
  if (g0 === 0x2001 && g1 < 0x0200) return 'reserved'; // 2001::/23, IETF protocol assignments (Teredo, ORCHID, benchmarking)
  if ((g0 & 0xfff0) === 0x3ff0) return 'reserved'; // 3fff::/20, documentation
  if ((g0 & 0xe000) !== 0x2000) return 'reserved'; // outside 2000::/3, the global unicast space
  return 'public';
}
