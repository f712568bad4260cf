/**
 * Bearer API key → tenant principal. One strongly consistent GetItem; no cache, so a
 * retired key is refused on the very next request. Every failure is the same 401 so a
 * caller cannot tell an unknown key from a wrong secret.
 */
import { unauthorized } from '../http/errors.js';
import { getApiKey } from '../repositories/api-keys.js';
import { appSecrets } from '../secrets.js';
import { bearerToken, parseToken, secretMatches } from './api-key-token.js';
import type { Role } from './roles.js';

export interface Principal {
  tenantId: string;
  type: 'api_key';
  keyId: string;
  keyName: string;
  role: Role;
}

export async function authenticate(authorization: string | undefined): Promise<Principal> {
  const token = bearerToken(authorization);
  const parsed = token ? parseToken(token) : undefined;
  if (!parsed) throw unauthorized();
  const [record, secrets] = await Promise.all([getApiKey(parsed.tenantId, parsed.keyId), appSecrets()]);
  if (!record || record.status !== 'active') throw unauthorized();
  if (!secretMatches(secrets.apiKeyPepper, parsed.keyId, parsed.secret, record.secret_hash)) throw unauthorized();
  return { tenantId: record.tenant_id, type: 'api_key', keyId: record.id, keyName: record.name, role: record.role };
}
