/**
 * Scheduled jobs the operator CLI can run at a chosen instant, locally
 * (`npm run admin -- jobs run <name> --at <date-time>`): name → (at) → summary. One line per
 * job, so adding one (e.g. billing's period close) is one entry.
 */
export type JobRunner = (at: Date) => Promise<unknown>;

export const jobs: Record<string, JobRunner> = {
  deletions: async (at) => (await import('../accounts/delete-tenant.js')).runDueDeletions(at),
  // Issue 15: period close — each tenant's invoice of the month before `at`.
  invoices: async (at) => (await import('../billing/invoice-job.js')).runInvoiceJob(at),
};
