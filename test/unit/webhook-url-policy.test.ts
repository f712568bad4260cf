import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, classifyAddress, type Resolver, type UrlPolicy, webhookUrlPolicy } from '../../shared/webhooks/url-policy.js';

const deployed: UrlPolicy = { allowLoopbackHttp: false };
const local: UrlPolicy = { allowLoopbackHttp: true };

/** A fake DNS: names map to addresses; anything else fails like getaddrinfo does. Records every lookup. */
function fakeDns(records: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    const found = records[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const);
  };
  return { resolve, asked };
}
const noDns: Resolver = async (hostname) => {
  throw new Error(`unexpected DNS lookup of ${hostname}`);
};

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.0', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['169.254.0.1', 'link_local'],
    ['172.15.255.255', 'public'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.20.0.0', 'public'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2::253', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['::10.1.2.3', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2001:db8::1', 'reserved'],
    ['2001:db8:ffff::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['4000::1', 'reserved'],
    ['not-an-address', 'reserved'],
    ['999.1.1.1', 'reserved'],
  ])('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });
});

describe('webhookUrlPolicy', () => {
  it('allows loopback http only when WEBHOOK_ALLOW_LOOPBACK_HTTP is exactly "true"', () => {
    expect(webhookUrlPolicy({ WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' })).toEqual({ allowLoopbackHttp: true });
    expect(webhookUrlPolicy({ WEBHOOK_ALLOW_LOOPBACK_HTTP: '1' })).toEqual({ allowLoopbackHttp: false });
    expect(webhookUrlPolicy({})).toEqual({ allowLoopbackHttp: false });
  });
});

describe('checkWebhookUrl refuses', () => {
  const refused = async (raw: string, policy: UrlPolicy = deployed, resolve: Resolver = noDns) => {
    const check = await checkWebhookUrl(raw, policy, resolve);
    if (check.ok) throw new Error(`${raw} was accepted`);
    return check.reason;
  };

  it.each([
    ['https://10.0.0.1/x', /^10\.0\.0\.1 is a private network address; webhooks may only go to public addresses$/, true],
    ['https://169.254.169.254/latest/meta-data', /^169\.254\.169\.254 is a cloud metadata address; webhooks may only go to public addresses$/, true],
    ['https://[::1]/', /^::1 is a loopback address/, false],
    ['https://[fd00:ec2::254]/', /^fd00:ec2::254 is a cloud metadata address/, true],
    ['https://[::ffff:127.0.0.1]/', /loopback address/, false],
    ['https://2130706433/', /^127\.0\.0\.1 is a loopback address/, false], // WHATWG URL reads a bare number as IPv4
    ['https://0.0.0.0:8443/', /unspecified address/, true],
    ['https://[fe80::1]/', /link-local/, true],
  ] as const)('%s, a literal address, without asking DNS', async (raw, reason, refusedLocallyToo) => {
    expect(await refused(raw)).toMatch(reason);
    // The local runtime allows loopback (and only loopback) on top of public addresses.
    if (refusedLocallyToo) expect(await refused(raw, local)).toMatch(reason);
    else expect(await checkWebhookUrl(raw, local, noDns)).toMatchObject({ ok: true });
  });

  it('plain http to a public address, under either policy', async () => {
    expect(await refused('http://8.8.8.8/hook')).toMatch(/must use https:\/\//);
    expect(await refused('http://8.8.8.8/hook', local)).toMatch(/must use https:\/\/.*loopback/);
    const dns = fakeDns({ 'hooks.example.com': ['93.184.216.34'] });
    expect(await refused('http://hooks.example.com/x', local, dns.resolve)).toMatch(/must use https:\/\//);
  });

  it('credentials in the URL', async () => {
    const dns = fakeDns({ 'hooks.example.com': ['93.184.216.34'] });
    expect(await refused('https://user:pass@hooks.example.com/x', deployed, dns.resolve)).toMatch(/user name or password/);
    expect(await refused('https://user@hooks.example.com/x', deployed, dns.resolve)).toMatch(/user name or password/);
  });

  it('anything that is not an absolute http(s) URL, or is too long', async () => {
    expect(await refused('hooks.example.com/x')).toMatch(/not an absolute URL/);
    expect(await refused('/relative')).toMatch(/not an absolute URL/);
    expect(await refused('')).toMatch(/empty/);
    expect(await refused('ftp://hooks.example.com/x')).toMatch(/must start with https:\/\//);
    expect(await refused('file:///etc/passwd')).toMatch(/must start with https:\/\//);
    const dns = fakeDns({ 'hooks.example.com': ['93.184.216.34'] });
    const long = `https://hooks.example.com/${'a'.repeat(2048 - 'https://hooks.example.com/'.length)}`;
    expect((await checkWebhookUrl(long, deployed, dns.resolve)).ok).toBe(true);
    expect(await refused(`${long}a`, deployed, dns.resolve)).toMatch(/2049 characters long; at most 2048/);
  });

  it('a name that resolves to loopback, under the deployed policy', async () => {
    const dns = fakeDns({ 'sneaky.example.com': ['127.0.0.1'] });
    expect(await refused('https://sneaky.example.com/hook', deployed, dns.resolve)).toBe(
      'sneaky.example.com resolves to 127.0.0.1, which is a loopback address; webhooks may only go to public addresses',
    );
    expect(dns.asked).toEqual(['sneaky.example.com']);
  });

  it('a name with one public and one private address (every address must be public)', async () => {
    for (const order of [
      ['93.184.216.34', '10.1.2.3'],
      ['10.1.2.3', '93.184.216.34'],
    ]) {
      const dns = fakeDns({ 'mixed.example.com': order });
      expect(await refused('https://mixed.example.com/', deployed, dns.resolve)).toMatch(/resolves to 10\.1\.2\.3, which is a private network address/);
    }
    const v6 = fakeDns({ 'mixed.example.com': ['2606:4700:4700::1111', 'fd00:ec2::254'] });
    expect(await refused('https://mixed.example.com/', deployed, v6.resolve)).toMatch(/fd00:ec2::254, which is a cloud metadata address/);
  });

  it('a name that does not resolve, or resolves to nothing', async () => {
    expect(await refused('https://nowhere.example.com/', deployed, fakeDns({}).resolve)).toBe(
      'nowhere.example.com does not resolve (ENOTFOUND); check the host name, or its DNS records',
    );
    expect(await refused('https://empty.example.com/', deployed, fakeDns({ 'empty.example.com': [] }).resolve)).toMatch(/does not resolve/);
  });
});

describe('checkWebhookUrl accepts', () => {
  it('https to a name whose every address is public, and returns those addresses', async () => {
    const dns = fakeDns({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    const check = await checkWebhookUrl('https://hooks.example.com/x?y=1', deployed, dns.resolve);
    expect(check).toEqual({
      ok: true,
      url: new URL('https://hooks.example.com/x?y=1'),
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
    });
    expect(dns.asked).toEqual(['hooks.example.com']);
  });

  it('https to a public literal address on any port', async () => {
    expect(await checkWebhookUrl('https://8.8.8.8:8443/hook', deployed, noDns)).toMatchObject({ ok: true, addresses: [{ address: '8.8.8.8', family: 4 }] });
    expect(await checkWebhookUrl('https://[2606:4700:4700::1111]/', deployed, noDns)).toMatchObject({
      ok: true,
      addresses: [{ address: '2606:4700:4700::1111', family: 6 }],
    });
  });

  it('http to loopback, only when the local policy allows it', async () => {
    const dns = fakeDns({ localhost: ['127.0.0.1', '::1'] });
    expect(await checkWebhookUrl('http://127.0.0.1:4567/', local, noDns)).toMatchObject({ ok: true, addresses: [{ address: '127.0.0.1', family: 4 }] });
    expect(await checkWebhookUrl('http://localhost:4567', local, dns.resolve)).toMatchObject({
      ok: true,
      addresses: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect(await checkWebhookUrl('http://127.0.0.1:4567/', deployed, noDns)).toMatchObject({ ok: false, reason: expect.stringMatching(/https/) });
    expect(await checkWebhookUrl('http://localhost:4567', deployed, dns.resolve)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('https://localhost:4567', deployed, dns.resolve)).toMatchObject({
      ok: false,
      reason: 'localhost resolves to 127.0.0.1, which is a loopback address; webhooks may only go to public addresses',
    });
  });

  it('but not http to a name resolving to loopback and a public address, even locally', async () => {
    const dns = fakeDns({ 'dev.example.com': ['127.0.0.1', '93.184.216.34'] });
    expect(await checkWebhookUrl('http://dev.example.com/', local, dns.resolve)).toMatchObject({ ok: false, reason: expect.stringMatching(/must use https/) });
    expect(await checkWebhookUrl('https://dev.example.com/', local, dns.resolve)).toMatchObject({ ok: true });
  });
});
