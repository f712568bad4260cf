/**
 * Consent evidence files: the original CSV of an import, kept as uploaded (the UTF-8 bytes
 * of `content`) in the import bucket (IMPORT_BUCKET; locally the emulator's S3 at
 * S3_ENDPOINT, path-style). Objects are encrypted at rest (SSE-S3, AES256) and written
 * with their SHA-256 in x-amz-content-sha256 and x-amz-checksum-sha256, which S3 verifies
 * on receipt; the same hex digest is each row's consent evidence content_hash.
 *
 * Why not @aws-sdk/client-s3: it adds ~170 KB (minified) to the import function, pushing
 * it past the 500 KB bundle budget (measured: 607 KB with it). One PUT needs only the
 * SDK's SigV4 signer (@smithy/signature-v4) and fetch.
 */

import { createHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { type AwsCredentials, credentialsFromEnv, NodeSha256 } from '../aws/aws-json.js';
import { env } from '../config.js';
import { backoff, mayRetry, TRANSIENT_HTTP } from '../retry.js';

export interface StoredEvidence {
  /** s3://bucket/key */
  fileUri: string;
  /** Lowercase hex SHA-256 of the stored bytes. */
  sha256: string;
  bytes: number;
}

function importBucket(): string {
  const bucket = process.env.IMPORT_BUCKET;
  if (!bucket) throw new Error('environment variable IMPORT_BUCKET is not set');
  return bucket;
}

/** RFC 3986 encoding of one path segment (S3 does not double-encode). */
const encodeSegment = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface SignableRequest {
  method: string;
  url: URL;
  /** Lower-case names. Every header given is signed. */
  headers: Record<string, string>;
  payloadSha256Hex: string;
}

/**
 * Signs an S3 request with the AWS SDK's own SigV4 signer (@smithy/signature-v4, already
 * in every bundle through the DynamoDB client). Returns the headers to send: the given
 * ones plus x-amz-date, x-amz-content-sha256, the session token and Authorization.
 */
export async function signS3Request(req: SignableRequest, creds: AwsCredentials, region: string, now: Date): Promise<Record<string, string>> {
  const signer = new SignatureV4({ service: 's3', region, credentials: creds, sha256: NodeSha256, uriEscapePath: false, applyChecksum: false });
  const signed = await signer.sign(
    {
      method: req.method,
      protocol: req.url.protocol,
      hostname: req.url.hostname,
      ...(req.url.port ? { port: Number(req.url.port) } : {}),
      path: req.url.pathname,
      query: {},
      headers: { ...req.headers, host: req.url.host, 'x-amz-content-sha256': req.payloadSha256Hex },
    },
    { signingDate: now },
  );
  const { host: _host, ...toSend } = signed.headers; // fetch derives Host from the URL (the value signed)
  return toSend;
}

/** Path-style on a local endpoint, virtual-hosted style on AWS. */
export function objectUrl(bucket: string, key: string, region: string, endpoint: string | undefined): URL {
  const path = key.split('/').map(encodeSegment).join('/');
  return endpoint
    ? new URL(`${endpoint.replace(/\/$/, '')}/${encodeSegment(bucket)}/${path}`)
    : new URL(`https://${bucket}.s3.${region}.amazonaws.com/${path}`);
}

class EvidenceStoreError extends Error {}

const objectKey = (tenantId: string, importId: string) => `imports/${tenantId}/${importId}.csv`;

/** Store an import's CSV at imports/<tenant_id>/<import_id>.csv. */
export async function storeImportFile(tenantId: string, importId: string, content: string): Promise<StoredEvidence> {
  const body = Buffer.from(content, 'utf8');
  const digest = createHash('sha256').update(body).digest();
  const bucket = importBucket();
  const key = objectKey(tenantId, importId);
  await sendSigned('PutObject', {
    method: 'PUT',
    url: objectUrl(bucket, key, env.region, env.s3Endpoint),
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'x-amz-server-side-encryption': 'AES256',
      'x-amz-checksum-sha256': digest.toString('base64'),
    },
    payloadSha256Hex: digest.toString('hex'),
    body,
  });
  return { fileUri: `s3://${bucket}/${key}`, sha256: digest.toString('hex'), bytes: body.length };
}

/**
 * Delete an import's CSV: the undo of storeImportFile for an import refused before its job
 * was written (nothing refers to the object then). Deleting a missing object succeeds.
 */
export async function deleteImportFile(tenantId: string, importId: string): Promise<void> {
  await sendSigned('DeleteObject', {
    method: 'DELETE',
    url: objectUrl(importBucket(), objectKey(tenantId, importId), env.region, env.s3Endpoint),
    headers: {},
    payloadSha256Hex: createHash('sha256').update('').digest('hex'),
  });
}

/** One signed S3 request, retried on throttling, server errors and network failures. */
async function sendSigned(operation: string, req: SignableRequest & { body?: Buffer }): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const headers = await signS3Request(req, credentialsFromEnv(), env.region, new Date());
    let failure: string;
    try {
      const res = await fetch(req.url, { method: req.method, headers, ...(req.body ? { body: req.body } : {}), signal: AbortSignal.timeout(10_000) });
      if (res.ok) {
        await res.arrayBuffer();
        return;
      }
      failure = `S3 ${operation} answered ${res.status}: ${(await res.text()).slice(0, 300)}`;
      // Only throttling and server errors are worth another try.
      if (res.status < 500 && res.status !== 429) throw new EvidenceStoreError(failure);
    } catch (err) {
      if (err instanceof EvidenceStoreError) throw err;
      failure = `S3 ${operation} failed: ${(err as Error).message}`; // network error or timeout
    }
    if (!mayRetry(TRANSIENT_HTTP, attempt)) throw new EvidenceStoreError(failure);
    await backoff(TRANSIENT_HTTP, attempt);
  }
}
