import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { listUsers } from '../../shared/repositories/users.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { userSummary } from '../../shared/schemas/identity.js';

/** GET /v1/users — read-only directory of who work can be attributed or assigned to. */
export const handler = defineRoute('listUsers', bearer, { query: pageQuery, responses: { 200: cursorPage(userSummary) } }, async ({ principal, query }) =>
  ok(await listUsers(principal.tenantId, query)),
);
