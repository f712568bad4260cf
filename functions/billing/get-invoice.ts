import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getInvoiceRecord, presentInvoice } from '../../shared/repositories/invoices.js';
import { invoicePath, invoiceResource } from '../../shared/schemas/billing.js';

/** GET /v1/invoices/{invoice_id} — an invoice with its line items; another tenant's id is a 404. */
export const handler = defineRoute('getInvoice', bearer, { path: invoicePath, responses: { 200: invoiceResource } }, async ({ principal, path }) => {
  const invoice = await getInvoiceRecord(principal.tenantId, path.invoice_id);
  if (!invoice) throw notFound('Invoice');
  return ok(presentInvoice(invoice as unknown as Record<string, unknown>));
});
