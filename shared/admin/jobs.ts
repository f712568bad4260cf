/**
 * Scheduled jobs an operator may run on demand, as of an instant:
 * `npm run admin -- jobs run <name> --at <date-time>` (local runtime). A registry so each
 * issue adds its job with one line: name → (at) => a JSON summary.
 */
export type JobRunner = (at: Date) => Promise<unknown>;

export const jobs: Record<string, JobRunner> = {
  // Issue 15: period close — each tenant's invoice of the month before `at`.
  invoices: async (at) => (await import('../billing/invoice-job.js')).runInvoiceJob(at),
};
