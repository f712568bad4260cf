import * as z from 'zod';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getTemplate } from '../../shared/repositories/agent-templates.js';
import { templateResource } from '../../shared/schemas/agent-templates.js';

const version = z.preprocess((v) => (typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : v), z.int().min(1));

/**
 * GET /v1/templates/{template_id} — the current version, or `?version=N` for an earlier
 * one (an earlier version reads as `deprecated`: it can no longer be instantiated).
 */
export const handler = defineRoute(
  'getTemplate',
  bearer,
  {
    path: z.object({ template_id: z.string().min(1).max(64) }),
    query: z.strictObject({ version: version.optional() }),
    responses: { 200: templateResource },
  },
  async ({ path, query }) => {
    const template = await getTemplate(path.template_id, query.version);
    if (!template) throw notFound('Template');
    return ok(template);
  },
);
