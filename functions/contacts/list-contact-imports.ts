import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { listImportJobs } from '../../shared/repositories/import-jobs.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { IMPORT_STATUSES, importJobSummary } from '../../shared/schemas/imports.js';

/**
 * GET /v1/contact-imports — import history, newest first. `status` filters on the status a
 * reader sees (an interrupted running job counts as failed). Items leave out `errors`:
 * read one job for its row-level rejections.
 */
export const handler = defineListRoute(
  'listContactImports',
  bearer,
  {
    query: pageQuery,
    filters: {
      created_at: { kind: 'datetime' },
      status: { kind: 'enum', values: IMPORT_STATUSES },
    },
    responses: { 200: cursorPage(importJobSummary) },
  },
  async ({ principal, query, filters }) => ok(await listImportJobs(principal.tenantId, { ...query, filters }, now())),
);
