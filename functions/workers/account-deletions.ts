import { runDueDeletions } from '../../shared/accounts/delete-tenant.js';
import { now } from '../../shared/clock.js';
import { logger } from '../../shared/observability.js';

/**
 * Account deletions (EventBridge, every 15 minutes): deletes every tenant whose deletion
 * request's grace period has ended, or resumes one a previous run left half-way
 * (shared/accounts/delete-tenant.ts). The local runtime runs it on an interval, and
 * `npm run admin -- jobs run deletions --at <date-time>` runs it at a chosen instant.
 */
export const handler = async () => {
  const result = await runDueDeletions(now());
  logger.info('account deletions', {
    due: result.due,
    completed: result.results.filter((r) => r.outcome === 'completed').length,
    failed: result.results.filter((r) => r.outcome === 'failed').length,
  });
  return result;
};
