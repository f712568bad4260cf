import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { listSuppressions } from '../../shared/repositories/suppressions.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { CONTACT_PHONE } from '../../shared/schemas/phone.js';
import { SUPPRESSION_REASONS, SUPPRESSION_SOURCES, SUPPRESSION_STATUSES, suppressionResource } from '../../shared/schemas/suppressions.js';

/** GET /v1/suppressions — every entry, active and lifted, newest first; filter grammar of the API conventions. */
export const handler = defineListRoute(
  'listSuppressions',
  bearer,
  {
    query: pageQuery,
    filters: {
      phone_e164: { kind: 'string', pattern: CONTACT_PHONE },
      reason: { kind: 'enum', values: SUPPRESSION_REASONS },
      status: { kind: 'enum', values: SUPPRESSION_STATUSES },
      source: { kind: 'enum', values: SUPPRESSION_SOURCES },
      created_at: { kind: 'datetime' },
    },
    responses: { 200: cursorPage(suppressionResource) },
  },
  async ({ principal, query, filters }) => ok(await listSuppressions(principal.tenantId, { ...query, filters })),
);
