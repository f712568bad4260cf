/**
 * One call to an AWS JSON-protocol API (Secrets Manager's GetSecretValue, KMS Encrypt and
 * Decrypt) over fetch, signed with the SDK's own SigV4 signer (@smithy/signature-v4, already in
 * every bundle through the DynamoDB client). Why not their SDK clients: each brings its own
 * serializers, error classes and endpoint rules for the one operation we call (measured:
 * Secrets Manager ~14 KB minified in every function, KMS ~28 KB in every function that
 * opens a carrier credential). Retried on throttling, server errors and network failures.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { env } from '../config.js';
import { backoff, mayRetry, TRANSIENT_HTTP } from '../retry.js';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Lambda hands a function its role's credentials in these variables; locally the runtime sets them. */
export function credentialsFromEnv(): AwsCredentials {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('AWS credentials are not in the environment');
  return { accessKeyId, secretAccessKey, ...(process.env.AWS_SESSION_TOKEN ? { sessionToken: process.env.AWS_SESSION_TOKEN } : {}) };
}

/** The service's answer to a refused call: its error type (e.g. InvalidCiphertextException) and status. */
export class AwsCallError extends Error {
  constructor(
    readonly type: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const retryable = (status: number, type: string) => status >= 500 || status === 429 || /Throttl/i.test(type);

/** `target` is the operation's X-Amz-Target (`secretsmanager.GetSecretValue`, `TrentService.Decrypt`); blobs travel base64. */
export async function awsJsonCall<T>(service: 'secretsmanager' | 'kms', target: string, input: Record<string, unknown>): Promise<T> {
  const region = env.region;
  const hostname = `${service}.${region}.amazonaws.com`;
  const body = JSON.stringify(input);
  for (let attempt = 1; ; attempt++) {
    const signer = new SignatureV4({ service, region, credentials: credentialsFromEnv(), sha256: NodeSha256 });
    const signed = await signer.sign({
      method: 'POST',
      protocol: 'https:',
      hostname,
      path: '/',
      query: {},
      headers: { host: hostname, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target },
      body,
    });
    const { host: _host, ...headers } = signed.headers; // fetch derives Host from the URL (the value signed)
    let failure: Error;
    try {
      const res = await fetch(`https://${hostname}/`, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (res.ok) return JSON.parse(text) as T;
      let detail: { __type?: string; message?: string; Message?: string } = {};
      try {
        detail = JSON.parse(text) as typeof detail;
      } catch {
        // not JSON (a proxy's page): the status says enough
      }
      // `__type` may come namespaced (`com.amazonaws.kms#InvalidCiphertextException`).
      const type = (detail.__type ?? res.headers.get('x-amzn-errortype') ?? 'UnknownError').split('#').pop()!.split(':')[0]!;
      failure = new AwsCallError(type, res.status, `${target} answered ${res.status} ${type}: ${(detail.message ?? detail.Message ?? '').slice(0, 300)}`);
      if (!retryable(res.status, type)) throw failure;
    } catch (err) {
      if (err instanceof AwsCallError && !retryable(err.status, err.type)) throw err;
      failure = err as Error; // network error or timeout, or a retryable answer
    }
    if (!mayRetry(TRANSIENT_HTTP, attempt)) throw failure;
    await backoff(TRANSIENT_HTTP, attempt);
  }
}

/**
 * node:crypto as the AWS SDK's Checksum interface (SHA-256, or HMAC-SHA256 when given a
 * secret), for @smithy/signature-v4. The SDK's own node hash package is not a dependency
 * of this tree; this is its whole job.
 */
type SourceData = string | ArrayBuffer | ArrayBufferView;

const toBuffer = (d: SourceData): Buffer =>
  typeof d === 'string' ? Buffer.from(d, 'utf8') : ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength) : Buffer.from(d);

export class NodeSha256 {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(this.secret));
  }

  update(data: SourceData): void {
    this.hash.update(toBuffer(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }
}
