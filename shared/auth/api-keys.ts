/** Minting API keys and presenting them; shared by the routes and the operator CLI. */
import type { z } from 'zod';
import { newId } from '../ids.js';
import type { Role } from '../policy/auth/roles.js';
import type { Actor, ApiKeyRecord } from '../repositories/api-key-credentials.js';
import type { apiKeySummary } from '../schemas/identity.js';
import { appSecrets } from '../secrets.js';
import { formatToken, hashSecret, mintSecret, TOKEN_PREFIX } from './api-key-token.js';

export interface MintedKey {
  record: ApiKeyRecord;
  /** The full token; exists only in memory and in the one response that shows it. */
  token: string;
}

export async function mintApiKey(input: { tenantId: string; name: string; role: Role; createdBy: Actor; replaces?: string; now?: string }): Promise<MintedKey> {
  const { apiKeyPepper } = await appSecrets();
  const id = newId('key');
  const secret = mintSecret();
  const record: ApiKeyRecord = {
    id,
    tenant_id: input.tenantId,
    name: input.name,
    role: input.role,
    status: 'active',
    secret_hash: hashSecret(apiKeyPepper, id, secret),
    secret_last4: secret.slice(-4),
    created_at: input.now ?? new Date().toISOString(),
    created_by: input.createdBy,
    retired_at: null,
    replaces_key_id: input.replaces ?? null,
    replaced_by_key_id: null,
  };
  return { record, token: formatToken(input.tenantId, id, secret) };
}

export function presentApiKey(k: ApiKeyRecord): z.infer<typeof apiKeySummary> {
  return {
    id: k.id,
    name: k.name,
    role: k.role,
    status: k.status,
    redacted_secret: `${TOKEN_PREFIX}…${k.secret_last4}`,
    created_at: k.created_at,
    created_by: k.created_by,
    retired_at: k.retired_at ?? null,
    replaces_key_id: k.replaces_key_id ?? null,
    replaced_by_key_id: k.replaced_by_key_id ?? null,
  };
}
