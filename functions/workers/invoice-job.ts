import { type InvoiceJobSummary, runInvoiceJob } from '../../shared/billing/invoice-job.js';
import { now } from '../../shared/clock.js';
import { logger } from '../../shared/observability.js';

/**
 * Invoice job (EventBridge, every 30 minutes; an interval locally): closes the month before now —
 * each tenant's invoice built from the usage ledger, finalized with the payment provider.
 * Idempotent per tenant and period (shared/billing/invoice-job.ts).
 */
export const handler = async (): Promise<InvoiceJobSummary> => {
  const result = await runInvoiceJob(now());
  logger.info('invoice job', { ...result });
  return result;
};
