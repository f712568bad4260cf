import { mintApiKey, presentApiKey } from '../../shared/auth/api-keys.js';
import { forbidden } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { roleCovers } from '../../shared/policy/auth/roles.js';
import { putApiKey } from '../../shared/repositories/api-keys.js';
import { apiKeyCreateRequest, apiKeyCreateResponse } from '../../shared/schemas/identity.js';

/** POST /v1/api-keys — 201 with the secret, shown this once. Role defaults to member (the schema's default). */
export const handler = defineRoute(
  'createApiKey',
  bearer,
  { body: apiKeyCreateRequest, responses: { 201: apiKeyCreateResponse } },
  async ({ principal, body }) => {
    const role = body.role;
    if (!roleCovers(principal.role, role)) throw forbidden(`A ${principal.role} key cannot mint a ${role} key`);
    const { record, token } = await mintApiKey({
      tenantId: principal.tenantId,
      name: body.name,
      role,
      createdBy: { type: 'api_key', id: principal.keyId },
    });
    await putApiKey(record);
    return created({ ...presentApiKey(record), secret: token });
  },
);
