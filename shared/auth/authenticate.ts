/**
 * Bearer API key → tenant principal. Two strongly consistent GetItems in parallel (the key and
 * its tenant, which must not be `deleting`/`deleted`); no cache, so a
 * retired key is refused on the very next request. Every failure is the same 401 so a
 * caller cannot tell an unknown key from a wrong secret.
 */
import { unauthorized } from '../http/errors.js';
import { getApiKey } from '../repositories/api-keys.js';
import { getTenant, tenantUsable } from '../repositories/tenants.js';
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
  // The tenant is read alongside the key (same latency): a tenant being deleted refuses every
  // key, even one written after the deletion's revoke step.
  const [record, secrets, tenant] = await Promise.all([getApiKey(parsed.tenantId, parsed.keyId), appSecrets(), getTenant(parsed.tenantId)]);
  if (!record || record.status !== 'active' || !tenantUsable(tenant)) throw unauthorized();
  if (!secretMatches(secrets.apiKeyPepper, parsed.keyId, parsed.secret, record.secret_hash)) throw unauthorized();
  return { tenantId: record.tenant_id, type: 'api_key', keyId: record.id, keyName: record.name, role: record.role };
}
