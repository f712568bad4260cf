/**
 * Items as the stores write them, for unit tests that seed the in-memory table
 * (document-client-mock.ts memoryTable): one definition per item shape, so a change to
 * the shape is made once.
 */
import { suppressionKeys } from '../../shared/db/keys.js';

/** The ACTIVE suppression item of a number: what the call path reads to refuse a dial. */
export const activeSuppressionItem = (tenantId: string, phone: string) => ({
  ...suppressionKeys.active(tenantId, phone),
  id: 'sup_01JDDDDDDDDDDDDDDDDDDDDDDD',
  phone_e164: phone,
  reason: 'opt_out',
  status: 'active',
  source: 'api',
  created_at: '2026-11-01T00:00:00Z',
});
