import * as z from 'zod';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getImportJob, presentImportJob } from '../../shared/repositories/import-jobs.js';
import { importJobResource } from '../../shared/schemas/imports.js';

/**
 * GET /v1/contact-imports/{import_id} — the job with its row-level rejections. A running
 * job whose lease expired (its process died) reads as failed. Another tenant's id is a
 * 404, exactly like a missing one.
 */
export const handler = defineRoute(
  'getContactImport',
  bearer,
  { path: z.object({ import_id: z.string().min(1).max(64) }), responses: { 200: importJobResource } },
  async ({ principal, path }) => {
    const job = await getImportJob(principal.tenantId, path.import_id);
    if (!job) throw notFound('Contact import');
    return ok(presentImportJob(job, new Date()));
  },
);
