/**
 * Encryption at rest for other parties' secrets (carrier credentials now; webhook signing
 * secrets later), with a key that is never in the table (the design):
 *   - on AWS: KMS (CREDENTIALS_KMS_KEY_ID), Encrypt/Decrypt (one signed call each:
 *     shared/aws/aws-json.ts) with an encryption context, so
 *     a sealed value copied to another tenant's or account's item does not open;
 *   - locally: AES-256-GCM under a 32-byte key read from CREDENTIALS_KEY_FILE (created by
 *     the local runtime under .local/), the context bound as additional authenticated data.
 * A sealed value is a string `v1.<kms|local>.<…>`; nothing else about it is meaningful.
 * Only functions that talk to the carrier hold decrypt rights (the manifest's `kms`).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { awsJsonCall } from '../aws/aws-json.js';

export type SealContext = Record<string, string>;

let localKey: Buffer | undefined;

const kmsKeyId = () => process.env.CREDENTIALS_KMS_KEY_ID || undefined;

/** The local key: CREDENTIALS_KEY_FILE (npm start: .local/credentials.key), or CREDENTIALS_KEY inline (in-memory test stacks). */
function keyFromFile(): Buffer {
  if (localKey) return localKey;
  const file = process.env.CREDENTIALS_KEY_FILE;
  const inline = process.env.CREDENTIALS_KEY;
  if (!file && !inline) throw new Error('none of CREDENTIALS_KMS_KEY_ID, CREDENTIALS_KEY_FILE, CREDENTIALS_KEY is set');
  const key = Buffer.from((file ? readFileSync(file, 'utf8') : inline!).trim(), 'base64');
  if (key.length !== 32) throw new Error('the credentials key file must hold 32 bytes, base64');
  localKey = key;
  return key;
}

/** Canonical AAD: the context's entries sorted by name. */
const aad = (context: SealContext) =>
  Buffer.from(
    JSON.stringify(
      Object.keys(context)
        .sort()
        .map((k) => [k, context[k]]),
    ),
    'utf8',
  );

export async function seal(plaintext: string, context: SealContext): Promise<string> {
  const keyId = kmsKeyId();
  if (keyId) {
    const out = await awsJsonCall<{ CiphertextBlob: string }>('kms', 'TrentService.Encrypt', {
      KeyId: keyId,
      Plaintext: Buffer.from(plaintext, 'utf8').toString('base64'),
      EncryptionContext: context,
    });
    return `v1.kms.${Buffer.from(out.CiphertextBlob, 'base64').toString('base64url')}`;
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFromFile(), iv);
  cipher.setAAD(aad(context));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1.local.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${ct.toString('base64url')}`;
}

export async function open(sealed: string, context: SealContext): Promise<string> {
  const [version, kind, ...rest] = sealed.split('.');
  if (version !== 'v1') throw new Error('unknown sealed-secret version');
  if (kind === 'kms') {
    const out = await awsJsonCall<{ Plaintext: string }>('kms', 'TrentService.Decrypt', {
      CiphertextBlob: Buffer.from(rest[0] ?? '', 'base64url').toString('base64'),
      EncryptionContext: context,
    });
    return Buffer.from(out.Plaintext, 'base64').toString('utf8');
  }
  if (kind !== 'local' || rest.length !== 3) throw new Error('malformed sealed secret');
  const [iv, tag, ct] = rest.map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
  const decipher = createDecipheriv('aes-256-gcm', keyFromFile(), iv);
  decipher.setAAD(aad(context));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
}

/** Test hook: forget the cached key after changing the environment. */
export function resetSecretBox(): void {
  localKey = undefined;
}
