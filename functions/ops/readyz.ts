import { probeTable } from '../../shared/db/client.js';
import { definePublicRoute } from '../../shared/http/route-core.js';
import { logger } from '../../shared/observability.js';
import { tenantIsolationHolds } from '../../shared/ops/isolation-checks.js';
import { healthSchema } from '../../shared/schemas/common.js';
import { appSecrets } from '../../shared/secrets.js';

/**
 * GET /readyz — 200 only when the table answers and the isolation checks hold; else 503.
 * The admin plane (an operator HTTP surface) is not wired in this deployment, which is
 * reported as a stated condition, not as unreadiness.
 */
export const handler = definePublicRoute('getReadiness', { responses: { 200: healthSchema, 503: healthSchema } }, async () => {
  const report: Record<string, string> = {};
  try {
    await probeTable();
    report.database = 'ok';
  } catch (err) {
    logger.warn('readiness: database probe failed', err as Error);
    report.database = 'unavailable';
  }
  const secretsOk = await appSecrets().then(
    (s) => s.apiKeyPepper !== s.cursorKey,
    () => false,
  );
  report.tenant_isolation = secretsOk && tenantIsolationHolds() ? 'ok' : 'failed';
  report.admin_plane = 'unwired';
  const ready = report.database === 'ok' && report.tenant_isolation === 'ok';
  report.status = ready ? 'ready' : 'not_ready';
  return { status: ready ? 200 : 503, body: report };
});
