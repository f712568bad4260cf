/**
 * Invoices (see docs/decisions/billing.md): `INVOICE#<inv>` in the tenant's partition with a top-level `status`
 * (draft, open, paid, void, uncollectible), one per tenant and period through the guard
 * `INVOICE_PERIOD#<YYYY-MM>` (put if absent with the draft). Every status change is one
 * conditional transaction with its outbox event; the provider's webhooks find the invoice
 * through `PLATFORM#PROVIDER_INVOICE#<external id>` and are remembered per event id.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction, noChange } from '../db/conditional-transaction.js';
import { billingKeys } from '../db/keys.js';
import { collectionHead, queryCollection } from '../db/query.js';
import { type EventType, outboxItems } from '../events/outbox.js';
import { newId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import { type InvoiceLineItem, type InvoiceStatus, invoiceStatusAfter, type ProviderInvoice } from '../policy/billing/invoices.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface InvoiceRecord {
  id: string;
  tenant_id: string;
  period: string;
  period_start: string;
  period_end: string;
  line_items: InvoiceLineItem[];
  total_minor: number;
  currency: string;
  status: InvoiceStatus;
  plan_id: string;
  provider: 'stripe' | 'sandbox' | null;
  external_ref: string | null;
  hosted_invoice_url: string | null;
  /** The provider's draft invoice, recorded as soon as it is created (reused by a retry). */
  provider_draft_ref?: string | null;
  created_at: string;
  updated_at: string;
}

export const presentInvoice = (r: Record<string, unknown>) => ({
  id: r.id as string,
  period_start: r.period_start as string,
  period_end: r.period_end as string,
  line_items: r.line_items as InvoiceLineItem[],
  total_minor: r.total_minor as number,
  currency: r.currency as string,
  status: r.status as InvoiceStatus,
  external_ref: (r.external_ref as string | null) ?? null,
  hosted_invoice_url: (r.hosted_invoice_url as string | null) ?? null,
  created_at: r.created_at as string,
  updated_at: r.updated_at as string,
});

const invoiceEventData = (
  r: Pick<InvoiceRecord, 'id' | 'period_start' | 'period_end' | 'status' | 'total_minor' | 'currency'>,
  at: string,
  previous: InvoiceStatus | null,
) => ({
  invoice_id: r.id,
  period_start: r.period_start,
  period_end: r.period_end,
  status: r.status,
  previous_status: previous,
  total_minor: r.total_minor,
  currency: r.currency,
  at,
});

export async function getInvoiceRecord(tenantId: string, invoiceId: string): Promise<InvoiceRecord | undefined> {
  if (invoiceId.includes('#')) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: billingKeys.invoice(tenantId, invoiceId), ConsistentRead: true }));
  return out.Item as InvoiceRecord | undefined;
}

/** The invoice of a tenant's period, if one was built. */
export async function invoiceOfPeriod(tenantId: string, period: string): Promise<InvoiceRecord | undefined> {
  const guard = await db().send(new GetCommand({ TableName: tableName(), Key: billingKeys.invoicePeriod(tenantId, period), ConsistentRead: true }));
  return guard.Item ? getInvoiceRecord(tenantId, guard.Item.invoice_id as string) : undefined;
}

/** The period's draft with its `invoice.created` event; the existing invoice when the period already has one. */
export async function createDraftInvoice(
  input: Omit<InvoiceRecord, 'id' | 'status' | 'provider' | 'external_ref' | 'hosted_invoice_url' | 'created_at' | 'updated_at'>,
  at: Date,
): Promise<{ invoice: InvoiceRecord; created: boolean }> {
  const nowIso = at.toISOString();
  const invoice: InvoiceRecord = {
    ...input,
    id: newId('inv'),
    status: 'draft',
    provider: null,
    external_ref: null,
    hosted_invoice_url: null,
    created_at: nowIso,
    updated_at: nowIso,
  };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...billingKeys.invoicePeriod(input.tenant_id, input.period), type: 'invoice_period', tenant_id: input.tenant_id, invoice_id: invoice.id },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...billingKeys.invoice(input.tenant_id, invoice.id), type: 'invoice', ...invoice },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          ...outboxItems(input.tenant_id, 'invoice.created', invoiceEventData(invoice, nowIso, null), at).items,
        ],
      }),
    );
    return { invoice, created: true };
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
    const existing = await invoiceOfPeriod(input.tenant_id, input.period);
    if (!existing) throw err;
    return { invoice: existing, created: false };
  }
}

/** Records the provider's draft of a draft invoice as soon as it exists (a retry reuses it). */
export async function recordProviderDraft(invoice: Pick<InvoiceRecord, 'tenant_id' | 'id'>, ref: string, at: Date): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: billingKeys.invoice(invoice.tenant_id, invoice.id),
        UpdateExpression: 'SET provider_draft_ref = :r, updated_at = :now',
        ConditionExpression: '#status = :draft',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':r': ref, ':draft': 'draft', ':now': at.toISOString() },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err; // no longer a draft: nothing to remember
  }
}

/** Records the tenant's provider customer as soon as it exists (the first one stands). */
export async function recordProviderCustomer(tenantId: string, ref: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: billingKeys.account(tenantId),
        UpdateExpression: 'SET customer_ref = if_not_exists(customer_ref, :c)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':c': ref },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}

/** draft → open with the provider's references (the pointer its webhooks use), once. false: it was no longer a draft. */
export async function openInvoice(invoice: InvoiceRecord, provider: ProviderInvoice, at: Date): Promise<boolean> {
  const nowIso = at.toISOString();
  const opened: InvoiceRecord = {
    ...invoice,
    status: 'open',
    provider: provider.provider,
    external_ref: provider.external_ref,
    hosted_invoice_url: provider.hosted_invoice_url,
    updated_at: nowIso,
  };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: billingKeys.invoice(invoice.tenant_id, invoice.id),
              UpdateExpression: 'SET #status = :open, provider = :provider, external_ref = :ref, hosted_invoice_url = :url, updated_at = :now',
              ConditionExpression: '#status = :draft',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':open': 'open',
                ':draft': 'draft',
                ':provider': provider.provider,
                ':ref': provider.external_ref,
                ':url': provider.hosted_invoice_url,
                ':now': nowIso,
              },
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...billingKeys.providerInvoice(provider.external_ref),
                type: 'provider_invoice',
                tenant_id: invoice.tenant_id,
                invoice_id: invoice.id,
                provider: provider.provider,
              },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: billingKeys.account(invoice.tenant_id),
              UpdateExpression: 'SET customer_ref = if_not_exists(customer_ref, :c)',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':c': provider.customer_ref },
            },
          },
          ...outboxItems(invoice.tenant_id, 'invoice.finalized', invoiceEventData(opened, nowIso, 'draft'), at).items,
        ],
      }),
    );
    return true;
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
    // No longer a draft (another run opened it), or the tenant's billing account is gone.
    return false;
  }
}

const EVENT_OF: Record<InvoiceStatus, EventType | null> = {
  draft: null,
  open: 'invoice.finalized',
  paid: 'invoice.paid',
  void: 'invoice.voided',
  uncollectible: 'invoice.marked_uncollectible',
};

export type ProviderEventResult = { outcome: 'applied'; status: InvoiceStatus } | { outcome: 'duplicate' | 'ignored' | 'unknown_invoice' };

/**
 * A verified provider event for one of our invoices: the status it moves to, if the move is
 * allowed from the current status (monotonic; shared/policy/billing/invoices.ts), committed with the
 * event-id guard and the invoice.* outbox event. A replayed event id is a duplicate; a stale
 * or reordered event (paid, then an older finalized) changes nothing.
 */
export async function applyProviderInvoiceEvent(eventId: string, type: string, externalRef: string, at: Date): Promise<ProviderEventResult> {
  if (externalRef.includes('#') || eventId.includes('#')) return { outcome: 'unknown_invoice' };
  const pointer = await db().send(new GetCommand({ TableName: tableName(), Key: billingKeys.providerInvoice(externalRef), ConsistentRead: true }));
  if (!pointer.Item) return { outcome: 'unknown_invoice' };
  const tenantId = pointer.Item.tenant_id as string;
  const invoiceId = pointer.Item.invoice_id as string;
  // Another delivery of this event, or another event, getting there first: read again.
  return conditionalTransaction<ProviderEventResult>({
    decide: async () => {
      const invoice = await getInvoiceRecord(tenantId, invoiceId);
      if (!invoice) return noChange({ outcome: 'unknown_invoice' });
      const seen = await db().send(new GetCommand({ TableName: tableName(), Key: billingKeys.providerEvent(tenantId, eventId), ConsistentRead: true }));
      if (seen.Item) return noChange({ outcome: 'duplicate' });
      const to = invoiceStatusAfter(invoice.status, type);
      if (!to) return noChange({ outcome: 'ignored' });
      const nowIso = at.toISOString();
      const items: TransactItem[] = [
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...billingKeys.providerEvent(tenantId, eventId),
              type: 'provider_event',
              tenant_id: tenantId,
              invoice_id: invoice.id,
              event_type: type,
              received_at: nowIso,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: billingKeys.invoice(tenantId, invoice.id),
            UpdateExpression: 'SET #status = :to, updated_at = :now',
            ConditionExpression: '#status = :from',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':to': to, ':from': invoice.status, ':now': nowIso },
          },
        },
        ...outboxItems(tenantId, EVENT_OF[to]!, invoiceEventData({ ...invoice, status: to }, nowIso, invoice.status), at).items,
      ];
      return commit(items, { outcome: 'applied', status: to });
    },
    exhausted: () => new Error(`invoice ${externalRef}: busy under every attempt`),
  });
}

export function listInvoices(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: 'invoices',
    skPrefix: billingKeys.invoicesPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: presentInvoice,
  });
}

/** The newest invoices (the mobile summary). */
export async function recentInvoices(tenantId: string, limit: number): Promise<InvoiceRecord[]> {
  return (await collectionHead(
    { pk: billingKeys.account(tenantId).pk, prefix: billingKeys.invoicesPrefix },
    { ScanIndexForward: false, Limit: limit },
  )) as unknown as InvoiceRecord[];
}

/** Invoices with a status (the mobile summary's payment attention). */
export async function invoicesWithStatus(tenantId: string, statuses: readonly InvoiceStatus[]): Promise<InvoiceRecord[]> {
  const values = Object.fromEntries(statuses.map((s, i) => [`:s${i}`, s]));
  const items = await queryCollection(
    { pk: billingKeys.account(tenantId).pk, prefix: billingKeys.invoicesPrefix },
    {
      FilterExpression: `#status IN (${Object.keys(values).join(', ')})`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    },
  );
  return items as unknown as InvoiceRecord[];
}
