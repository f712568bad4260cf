import * as z from 'zod';
import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { updateProfile } from '../../shared/repositories/compliance-profiles.js';
import { complianceProfileResource, complianceProfileUpdateRequest } from '../../shared/schemas/compliance-profiles.js';

/**
 * PATCH /v1/compliance-profiles/{profile_id} (admin or manager) — sets the given fields
 * (`calling_window: null` removes the tenant's own window) and bumps `revision`. Published
 * agent versions keep the frozen copy they were published with.
 */
export const handler = defineRoute(
  'updateComplianceProfile',
  bearer,
  { path: z.object({ profile_id: z.string().min(1).max(64) }), body: complianceProfileUpdateRequest, responses: { 200: complianceProfileResource } },
  async ({ principal, path, body }) => {
    const profile = await updateProfile(principal.tenantId, path.profile_id, body ?? {}, now());
    if (!profile) throw notFound('Compliance profile');
    return ok(profile);
  },
);
