/**
 * Scheduled jobs the operator CLI can run at a chosen instant, locally
 * (`npm run admin -- jobs run <name> --at <date-time>`): name → (at) → summary. One line per
 * job, so adding one (e.g. issue 15's invoices) is one entry.
 */
export const jobs: Record<string, (at: Date) => Promise<unknown>> = {
  deletions: async (at) => (await import('../accounts/delete-tenant.js')).runDueDeletions(at),
};
