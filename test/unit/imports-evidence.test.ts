import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { objectUrl, signS3Request } from '../../shared/storage/evidence-store.js';

/** node:crypto as the SDK's Checksum interface (HMAC when given a secret). */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (d: SourceData) =>
  typeof d === 'string' ? Buffer.from(d, 'utf8') : ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength) : Buffer.from(d);
class Sha256 {
  private readonly h;
  constructor(secret?: SourceData) {
    this.h = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
  }
  update(data: SourceData) {
    this.h.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
  reset() {}
}

const body = Buffer.from('phone,name\r\n+15550000001,"Ann, Jr."\r\n', 'utf8');
const sha = createHash('sha256').update(body).digest();
const now = new Date('2026-03-01T12:34:56.789Z');

describe('S3 request signing (SigV4)', () => {
  it.each([
    ['AWS, virtual-hosted, with a session token', objectUrl('vc-imports-abc', 'imports/ten_1/imp_2.csv', 'eu-west-1', undefined), { sessionToken: 'FwoGZXIvYXdzEJr//////////token' }, 'eu-west-1'],
    ['local, path-style on a port', objectUrl('test-imports', 'imports/ten_1/imp_2.csv', 'us-east-1', 'http://127.0.0.1:4566/'), {}, 'us-east-1'],
  ])('matches the AWS SDK signer: %s', async (_name, url, extra, region) => {
    const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', ...extra };
    const given = { 'content-type': 'text/csv; charset=utf-8', 'x-amz-server-side-encryption': 'AES256', 'x-amz-checksum-sha256': sha.toString('base64') };
    const ours = signS3Request({ method: 'PUT', url, headers: given, payloadSha256Hex: sha.toString('hex') }, creds, region, now);

    const sdk = new SignatureV4({ service: 's3', region, credentials: creds, sha256: Sha256, uriEscapePath: false, applyChecksum: true });
    const signed = await sdk.sign(
      {
        method: 'PUT',
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: url.pathname,
        query: {},
        headers: { ...given, host: url.host, 'x-amz-content-sha256': sha.toString('hex') },
        body,
      },
      { signingDate: now },
    );
    expect(ours.authorization).toBe(signed.headers.authorization);
    expect(ours).not.toHaveProperty('host');
    expect(ours['x-amz-date']).toBe('20260301T123456Z');
  });

  it('builds object URLs: virtual-hosted on AWS, path-style on an emulator endpoint', () => {
    expect(objectUrl('b', 'imports/t/i.csv', 'us-east-1', undefined).href).toBe('https://b.s3.us-east-1.amazonaws.com/imports/t/i.csv');
    expect(objectUrl('b', 'imports/t/i.csv', 'us-east-1', 'http://127.0.0.1:9000').href).toBe('http://127.0.0.1:9000/b/imports/t/i.csv');
  });
});
