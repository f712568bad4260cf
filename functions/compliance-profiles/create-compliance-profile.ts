import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { createProfile } from '../../shared/repositories/compliance-profiles.js';
import { complianceProfileCreateRequest, complianceProfileResource } from '../../shared/schemas/compliance-profiles.js';

/** POST /v1/compliance-profiles (admin or manager) — 201 with the profile. */
export const handler = defineRoute(
  'createComplianceProfile',
  bearer,
  { body: complianceProfileCreateRequest, responses: { 201: complianceProfileResource } },
  async ({ principal, body }) => created(await createProfile(principal.tenantId, body, now())),
);
