import * as z from 'zod';
import { ROLES } from '../policy/auth/roles.js';
import { timestamp } from './common.js';
import { singleLineText } from './text.js';

const role = z.enum(ROLES);

const tenantSummary = z.object({ id: z.string(), name: z.string(), status: z.enum(['active', 'suspended']), created_at: timestamp });

export const principalResource = z
  .object({
    object: z.literal('principal'),
    type: z.literal('api_key'),
    role,
    tenant: tenantSummary,
    api_key: z.object({ id: z.string(), name: z.string() }),
  })
  .meta({ id: 'CurrentPrincipalResource' });

export const userSummary = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role,
    status: z.enum(['active', 'deactivated']),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'TenantUserSummary' });

const actor = z.object({ type: z.enum(['api_key', 'user', 'operator']), id: z.string().nullable() });

export const apiKeySummary = z
  .object({
    id: z.string(),
    name: z.string(),
    role,
    status: z.enum(['active', 'retired']),
    /** Enough to recognise a key, never enough to use it. */
    redacted_secret: z.string(),
    created_at: timestamp,
    created_by: actor,
    retired_at: timestamp.nullable(),
    replaces_key_id: z.string().nullable(),
    replaced_by_key_id: z.string().nullable(),
  })
  .meta({ id: 'ApiKeySummary' });

export const apiKeyCreateRequest = z
  .strictObject({
    name: singleLineText({ min: 1, max: 100 }),
    role: role.default('member').describe("The new key's role; absent = member, the least privilege (never the caller's own). At most the caller's role."),
  })
  .meta({ id: 'ApiKeyCreateRequest' });

export const apiKeyCreateResponse = apiKeySummary
  .extend({ secret: z.string().describe('The full API key. Returned exactly once; store it now.') })
  .meta({ id: 'ApiKeyCreateResponse' });

export const apiKeyRotateResponse = apiKeyCreateResponse.extend({ retired_key: apiKeySummary }).meta({ id: 'ApiKeyRotateResponse' });
