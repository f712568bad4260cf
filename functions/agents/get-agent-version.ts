import * as z from 'zod';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getAgentVersion } from '../../shared/repositories/agents.js';
import { agentVersion } from '../../shared/schemas/agents.js';

/** GET /v1/agent-versions/{version_id} — an immutable published version. */
export const handler = defineRoute(
  'getAgentVersion',
  bearer,
  { path: z.object({ version_id: z.string().min(1).max(64) }), responses: { 200: agentVersion } },
  async ({ principal, path }) => {
    const version = await getAgentVersion(principal.tenantId, path.version_id);
    if (!version) throw notFound('Agent version');
    return ok(version);
  },
);
