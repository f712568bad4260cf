import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { listReps } from '../../shared/repositories/reps.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { REP_STATUSES, repSummary } from '../../shared/schemas/reps.js';

/** GET /v1/reps — newest first; a rep's transfer number is never rendered. */
export const handler = defineListRoute(
  'listReps',
  bearer,
  { query: pageQuery, filters: { status: { kind: 'enum', values: REP_STATUSES } }, responses: { 200: cursorPage(repSummary) } },
  async ({ principal, query, filters }) => ok(await listReps(principal.tenantId, { ...query, filters })),
);
