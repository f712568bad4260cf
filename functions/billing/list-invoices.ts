import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { INVOICE_STATUSES } from '../../shared/policy/billing/invoices.js';
import { listInvoices } from '../../shared/repositories/invoices.js';
import { invoiceResource } from '../../shared/schemas/billing.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/** GET /v1/invoices — the tenant's invoices, newest first; filters created_at, period_start, status (the API conventions). */
export const handler = defineListRoute(
  'listInvoices',
  bearer,
  {
    query: pageQuery,
    filters: { created_at: { kind: 'datetime' }, period_start: { kind: 'datetime' }, status: { kind: 'enum', values: INVOICE_STATUSES } },
    responses: { 200: cursorPage(invoiceResource) },
  },
  async ({ principal, query, filters }) => ok(await listInvoices(principal.tenantId, { ...query, filters })),
);
