import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { mintApiKey, presentApiKey } from '../../shared/auth/api-keys.js';
import { conflict, forbidden, notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { roleCovers } from '../../shared/policy/auth/roles.js';
import { getApiKey, rotateApiKey } from '../../shared/repositories/api-keys.js';
import { apiKeyRotateResponse } from '../../shared/schemas/identity.js';

/**
 * POST /v1/api-keys/{key_id}/rotate — retire the key and mint its replacement (same
 * name and role) in one transaction. The old key stops working immediately.
 */
export const handler = defineRoute(
  'rotateApiKey',
  bearer,
  { path: z.object({ key_id: z.string().min(1).max(64) }), responses: { 200: apiKeyRotateResponse } },
  async ({ principal, path }) => {
    const old = await getApiKey(principal.tenantId, path.key_id);
    if (!old) throw notFound('API key');
    if (old.status !== 'active') throw conflict('api_key_retired', 'This API key is already retired');
    if (!roleCovers(principal.role, old.role)) throw forbidden(`A ${principal.role} key cannot rotate a ${old.role} key`);
    const now = new Date().toISOString();
    const { record, token } = await mintApiKey({
      tenantId: principal.tenantId,
      name: old.name,
      role: old.role,
      createdBy: { type: 'api_key', id: principal.keyId },
      replaces: old.id,
      now,
    });
    try {
      await rotateApiKey(old, record, now);
    } catch (err) {
      if (err instanceof TransactionCanceledException || err instanceof ConditionalCheckFailedException) {
        throw conflict('api_key_retired', 'This API key was retired by a concurrent request');
      }
      throw err;
    }
    const retired = { ...old, status: 'retired' as const, retired_at: now, replaced_by_key_id: record.id };
    return ok({ ...presentApiKey(record), secret: token, retired_key: presentApiKey(retired) });
  },
);
