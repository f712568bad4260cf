import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { listProfiles } from '../../shared/repositories/compliance-profiles.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { complianceProfileResource } from '../../shared/schemas/compliance-profiles.js';

/** GET /v1/compliance-profiles — newest first. */
export const handler = defineRoute(
  'listComplianceProfiles',
  bearer,
  { query: pageQuery, responses: { 200: cursorPage(complianceProfileResource) } },
  async ({ principal, query }) => ok(await listProfiles(principal.tenantId, query)),
);
