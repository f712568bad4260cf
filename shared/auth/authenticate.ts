/**
 * Bearer API key → tenant principal. One strongly consistent BatchGetItem of the key and its
 * tenant (which must not be `deleting`/`deleted`), plus, when the route asks, one item of
 * the request read alongside (used only once the key is proven); no cache, so a retired key
 * is refused on the very next request. Every failure is the same 401 so a
 * caller cannot tell an unknown key from a wrong secret.
 */

import type { ItemKey, ItemsByKey } from '../db/batch-get.js';
import { unauthorized } from '../errors.js';
import type { Role } from '../policy/auth/roles.js';
import { readCredential } from '../repositories/api-key-credentials.js';
import { tenantUsable } from '../repositories/tenants.js';
import { appSecrets } from '../secrets.js';
import { bearerToken, parseToken, secretMatches } from './api-key-token.js';

export interface Principal {
  tenantId: string;
  type: 'api_key';
  keyId: string;
  keyName: string;
  role: Role;
}

/**
 * The principal; the items `also(tenantId)` names (called with the tenant the token names,
 * before the read starts) are read in the same call and returned only with a proven principal.
 */
export async function authenticate(
  authorization: string | undefined,
  also?: (tenantId: string) => readonly ItemKey[],
): Promise<{ principal: Principal; also: ItemsByKey }> {
  const token = bearerToken(authorization);
  const parsed = token ? parseToken(token) : undefined;
  if (!parsed) throw unauthorized();
  // The tenant is read alongside the key (same call): a tenant being deleted refuses every
  // key, even one written after the deletion's revoke step.
  const [read, secrets] = await Promise.all([readCredential(parsed.tenantId, parsed.keyId, also?.(parsed.tenantId)), appSecrets()]);
  const record = read.key;
  if (!record || record.status !== 'active' || !tenantUsable(read.tenant)) throw unauthorized();
  if (!secretMatches(secrets.apiKeyPepper, parsed.keyId, parsed.secret, record.secret_hash)) throw unauthorized();
  return { principal: { tenantId: record.tenant_id, type: 'api_key', keyId: record.id, keyName: record.name, role: record.role }, also: read.also };
}
