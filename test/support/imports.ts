/**
 * Import test helpers for tests that drive prepareImport/runImport directly (no HTTP):
 * a fresh tenant, a parsed request, a CSV built from cells (every cell quoted, RFC 4180).
 */
import { createTenant } from '../../shared/admin/bootstrap.js';
import { prepareImport, type RunOptions, runImport } from '../../shared/imports/run-import.js';
import { contactImportRequest } from '../../shared/schemas/imports.js';

export const importAttestation = {
  signer_name: 'Dana Cruz',
  signer_title: 'Chief Operating Officer',
  affirmation: 'Every person in this file gave prior express written consent on our web form.',
  consent_basis: 'pewc',
} as const;

export async function newImportTenant(): Promise<{ tenantId: string; userId: string }> {
  const t = await createTenant({ name: 'Importer', adminEmail: `admin-${Math.random().toString(36).slice(2)}@example.com` });
  return { tenantId: t.tenant_id, userId: t.user_id };
}

/** One CSV line, every cell quoted (quotes doubled), so any text survives. */
export const csvLine = (cells: readonly string[]): string => cells.map((c) => `"${c.replace(/"/g, '""')}"`).join(',');
export const csvText = (header: readonly string[], rows: readonly (readonly string[])[]): string => [header, ...rows].map(csvLine).join('\r\n') + '\r\n';

export const testPhone = (n: number): string => `+1555${String(n).padStart(7, '0')}`;

/** prepareImport + runImport on a request checked by the route's own schema. */
export async function importCsv(tenantId: string, body: Record<string, unknown>, opts: Partial<RunOptions> = {}) {
  const request = contactImportRequest.parse({ file_name: 'test.csv', consent_attestation: importAttestation, ...body });
  return runImport(await prepareImport(tenantId, request), { sourceIp: '192.0.2.1', ...opts });
}
