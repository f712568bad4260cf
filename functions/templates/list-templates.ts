import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { listTemplates } from '../../shared/repositories/agent-templates.js';
import { OUTCOME_TYPES, TEMPLATE_STATUSES, templateSummary, USE_CASES } from '../../shared/schemas/agent-templates.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/** GET /v1/templates — the platform's templates (no tenant owns them), by id. */
export const handler = defineListRoute(
  'listTemplates',
  bearer,
  {
    query: pageQuery,
    filters: {
      use_case: { kind: 'enum', values: USE_CASES },
      outcome_type: { kind: 'enum', values: OUTCOME_TYPES },
      status: { kind: 'enum', values: TEMPLATE_STATUSES },
    },
    responses: { 200: cursorPage(templateSummary) },
  },
  async ({ principal, query, filters }) => ok(await listTemplates(principal.tenantId, { ...query, filters })),
);
