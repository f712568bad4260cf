import * as z from 'zod';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getProfile } from '../../shared/repositories/compliance-profiles.js';
import { complianceProfileResource } from '../../shared/schemas/compliance-profiles.js';

/** GET /v1/compliance-profiles/{profile_id} — another tenant's id is a 404, like a missing one. */
export const handler = defineRoute(
  'getComplianceProfile',
  bearer,
  { path: z.object({ profile_id: z.string().min(1).max(64) }), responses: { 200: complianceProfileResource } },
  async ({ principal, path }) => {
    const profile = await getProfile(principal.tenantId, path.profile_id);
    if (!profile) throw notFound('Compliance profile');
    return ok(profile);
  },
);
