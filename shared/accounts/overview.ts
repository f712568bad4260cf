/**
 * AccountDeletionOverview (see docs/decisions/account-deletion.md): what deleting the account would remove now, and the
 * protected request's status. Counts are exact (paged COUNT queries on the tenant's own keys).
 */
import { callKeys, collections, contactKeys } from '../db/keys.js';
import { ACTIVE_CAMPAIGN_STATUSES, confirmationPhrase, GRACE_PERIOD_DAYS, RELEASABLE_NUMBER_STATUSES } from '../policy/accounts/deletion-rules.js';
import { getDeletionRequest } from '../repositories/account-deletion.js';
import { countIndexPartition, countTenantCollection } from '../repositories/tenant-data.js';
import { getTenant } from '../repositories/tenants.js';
import type { AccountDeletionOverview } from '../schemas/account-deletion.js';

export async function accountDeletionOverview(tenantId: string): Promise<AccountDeletionOverview> {
  const [tenant, request, contacts, calls, numbers, campaigns, invoices] = await Promise.all([
    getTenant(tenantId),
    getDeletionRequest(tenantId),
    countIndexPartition(contactKeys.contactsIndexPartition(tenantId)),
    countIndexPartition(callKeys.callsIndexPartition(tenantId)),
    countTenantCollection(tenantId, collections.phoneNumbers, 'status', RELEASABLE_NUMBER_STATUSES),
    countTenantCollection(tenantId, collections.campaigns, 'status', ACTIVE_CAMPAIGN_STATUSES),
    // Invoices are the billing area's items (`INVOICE#…`, status open; docs/decisions/billing.md).
    countTenantCollection(tenantId, collections.invoices, 'status', ['open']),
  ]);
  const name = tenant?.name ?? '';
  return {
    object: 'account_deletion',
    tenant: { id: tenantId, name },
    impact: { contacts, calls, phone_numbers_to_release: numbers, active_campaigns: campaigns, open_invoices: invoices },
    request: request
      ? {
          status: request.status,
          requested_at: request.requested_at,
          scheduled_for: request.status === 'pending' || request.status === 'deleting' ? request.scheduled_for : null,
          confirmed_by: request.confirmed_by,
          cancelled_at: request.cancelled_at,
          completed_at: request.completed_at,
        }
      : { status: 'none', requested_at: null, scheduled_for: null, confirmed_by: null, cancelled_at: null, completed_at: null },
    grace_period_days: GRACE_PERIOD_DAYS,
    confirmation_phrase: confirmationPhrase(name),
  };
}
