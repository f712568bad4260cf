import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { objectUrl, signS3Request } from '../../shared/storage/evidence-store.js';

/**
 * An independent, by-the-book SigV4 for one S3 PUT (AWS "Signature Version 4 signing
 * process"), as the oracle the production signer must agree with.
 */
function referenceAuthorization(
  url: URL,
  headers: Record<string, string>,
  payloadHex: string,
  creds: { accessKeyId: string; secretAccessKey: string },
  region: string,
  amzDate: string,
): string {
  const day = amzDate.slice(0, 8);
  const names = Object.keys(headers)
    .map((n) => n.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const canonicalHeaders = names.map((n) => `${n}:${lower[n]!.trim()}\n`).join('');
  const canonical = ['PUT', url.pathname, '', canonicalHeaders, names.join(';'), payloadHex].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const h = (k: Buffer | string, d: string) => createHmac('sha256', k).update(d).digest();
  const key = h(h(h(h(`AWS4${creds.secretAccessKey}`, day), region), 's3'), 'aws4_request');
  return `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${createHmac('sha256', key).update(toSign).digest('hex')}`;
}

const body = Buffer.from('phone,name\r\n+15550000001,"Ann, Jr."\r\n', 'utf8');
const sha = createHash('sha256').update(body).digest();
const now = new Date('2026-03-01T12:34:56.789Z');

describe('S3 request signing (SigV4)', () => {
  it.each([
    [
      'AWS, virtual-hosted, with a session token',
      objectUrl('vc-imports-abc', 'imports/ten_1/imp_2.csv', 'eu-west-1', undefined),
      { sessionToken: 'FwoGZXIvYXdzEJr//////////token' },
      'eu-west-1',
    ],
    ['local, path-style on a port', objectUrl('test-imports', 'imports/ten_1/imp_2.csv', 'us-east-1', 'http://127.0.0.1:4566/'), {}, 'us-east-1'],
  ])('signs what S3 checks, agreeing with the reference: %s', async (_name, url, extra, region) => {
    const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', ...extra };
    const given = { 'content-type': 'text/csv; charset=utf-8', 'x-amz-server-side-encryption': 'AES256', 'x-amz-checksum-sha256': sha.toString('base64') };
    const sent = await signS3Request({ method: 'PUT', url, headers: given, payloadSha256Hex: sha.toString('hex') }, creds, region, now);

    expect(sent['x-amz-date']).toBe('20260301T123456Z');
    expect(sent['x-amz-content-sha256']).toBe(sha.toString('hex'));
    expect(sent).not.toHaveProperty('host'); // fetch derives it from the URL
    const signedNames = /SignedHeaders=([^,]+)/.exec(sent.authorization!)![1]!.split(';');
    for (const name of ['host', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-server-side-encryption', 'x-amz-checksum-sha256', 'content-type']) {
      expect(signedNames).toContain(name);
    }
    if ('sessionToken' in extra) expect(sent['x-amz-security-token']).toBe(extra.sessionToken);
    const { authorization, ...rest } = sent;
    expect(authorization).toBe(referenceAuthorization(url, { ...rest, host: url.host }, sha.toString('hex'), creds, region, '20260301T123456Z'));
  });

  it('builds object URLs: virtual-hosted on AWS, path-style on an emulator endpoint', () => {
    expect(objectUrl('b', 'imports/t/i.csv', 'us-east-1', undefined).href).toBe('https://b.s3.us-east-1.amazonaws.com/imports/t/i.csv');
    expect(objectUrl('b', 'imports/t/i.csv', 'us-east-1', 'http://127.0.0.1:9000').href).toBe('http://127.0.0.1:9000/b/imports/t/i.csv');
  });
});
