import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AwsCallError, awsJsonCall } from '../../shared/aws/aws-json.js';
import { open, resetSecretBox, seal } from '../../shared/crypto/secret-box.js';

type Sent = { url: string; headers: Record<string, string>; body: string };

/** fetch answering from `answers` in turn, recording what was sent. */
function stubFetch(answers: { status: number; body: unknown }[]): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: { headers: Record<string, string>; body: string }) => {
      sent.push({ url: String(url), headers: init.headers, body: init.body });
      const a = answers.shift();
      if (!a) throw new Error('no more answers');
      return new Response(JSON.stringify(a.body), { status: a.status });
    }),
  );
  return sent;
}

const ENV = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token', AWS_REGION: 'eu-west-1' };
const saved: Record<string, string | undefined> = {};

beforeEach(() => {
  for (const [k, v] of Object.entries({ ...ENV, CREDENTIALS_KMS_KEY_ID: 'alias/creds' })) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  resetSecretBox();
});
afterEach(() => {
  vi.unstubAllGlobals();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('a signed AWS JSON call (Secrets Manager, KMS) without their SDK clients', () => {
  it('POSTs the operation to the regional endpoint, SigV4-signed with the environment credentials', async () => {
    const sent = stubFetch([{ status: 200, body: { SecretString: '{}' } }]);
    await expect(awsJsonCall('secretsmanager', 'secretsmanager.GetSecretValue', { SecretId: 'arn:x' })).resolves.toEqual({ SecretString: '{}' });
    expect(sent).toHaveLength(1);
    const [req] = sent;
    expect(req!.url).toBe('https://secretsmanager.eu-west-1.amazonaws.com/');
    expect(JSON.parse(req!.body)).toEqual({ SecretId: 'arn:x' });
    expect(req!.headers['x-amz-target']).toBe('secretsmanager.GetSecretValue');
    expect(req!.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(req!.headers['x-amz-security-token']).toBe('token');
    expect(req!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/secretsmanager\/aws4_request, SignedHeaders=[^,]*content-type;host;[^,]*x-amz-target, Signature=[0-9a-f]{64}$/,
    );
  });

  it('retries a throttled or failed answer, and throws a refusal at once with its error type', async () => {
    const sent = stubFetch([
      { status: 400, body: { __type: 'ThrottlingException', message: 'slow down' } },
      { status: 500, body: { __type: 'InternalFailure' } },
      { status: 200, body: { Plaintext: Buffer.from('hi').toString('base64') } },
    ]);
    await expect(awsJsonCall('kms', 'TrentService.Decrypt', {})).resolves.toEqual({ Plaintext: 'aGk=' });
    expect(sent).toHaveLength(3);

    const refused = stubFetch([{ status: 400, body: { __type: 'com.amazonaws.kms#InvalidCiphertextException', message: 'no' } }]);
    const err = await awsJsonCall('kms', 'TrentService.Decrypt', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AwsCallError);
    expect((err as AwsCallError).type).toBe('InvalidCiphertextException');
    expect(refused).toHaveLength(1);
  });

  it('seals and opens through KMS with the encryption context, blobs as base64', async () => {
    const ciphertext = Buffer.from('opaque-kms-blob');
    const sent = stubFetch([
      { status: 200, body: { CiphertextBlob: ciphertext.toString('base64') } },
      { status: 200, body: { Plaintext: Buffer.from('auth-token').toString('base64') } },
    ]);
    const context = { tenant_id: 't1', account_id: 'a1' };
    const sealed = await seal('auth-token', context);
    expect(sealed).toBe(`v1.kms.${ciphertext.toString('base64url')}`);
    expect(await open(sealed, context)).toBe('auth-token');
    expect(sent.map((s) => s.headers['x-amz-target'])).toEqual(['TrentService.Encrypt', 'TrentService.Decrypt']);
    expect(JSON.parse(sent[0]!.body)).toEqual({ KeyId: 'alias/creds', Plaintext: Buffer.from('auth-token').toString('base64'), EncryptionContext: context });
    expect(JSON.parse(sent[1]!.body)).toEqual({ CiphertextBlob: ciphertext.toString('base64'), EncryptionContext: context });
  });
});
