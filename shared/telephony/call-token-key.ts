/**
 * The key that signs Stream tokens and Gather callback state (shared/telephony/call-tokens.ts),
 * derived with HKDF from the application secret's cursor key under its own label: one secret
 * to keep and rotate, and a key no other use shares.
 */
import { hkdfSync } from 'node:crypto';
import { appSecrets } from '../secrets.js';

let cached: { from: string; key: Buffer } | undefined;

export async function callTokenKey(): Promise<Buffer> {
  const { cursorKey } = await appSecrets();
  if (cached?.from !== cursorKey) cached = { from: cursorKey, key: Buffer.from(hkdfSync('sha256', cursorKey, Buffer.alloc(0), 'call-tokens.v1', 32)) };
  return cached.key;
}
