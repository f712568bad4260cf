/** Invoices (shared/repositories/invoices.ts): one per period, opened once, moved by provider events monotonically and once per event. */
import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { billingKeys } from '../../../shared/db/keys.js';
import {
  applyProviderInvoiceEvent,
  createDraftInvoice,
  getInvoiceRecord,
  type InvoiceRecord,
  invoiceOfPeriod,
  invoicesWithStatus,
  openInvoice,
  recentInvoices,
  recordProviderDraft,
} from '../../../shared/repositories/invoices.js';
import { conditionFailed, ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-12-01T00:05:00.000Z');
const draft = {
  tenant_id: T,
  period: '2026-11',
  period_start: '2026-11-01T00:00:00.000Z',
  period_end: '2026-12-01T00:00:00.000Z',
  line_items: [],
  total_minor: 4900,
  currency: 'usd',
  plan_id: 'plan_starter',
};
beforeEach(() => table.reset());

const stored = (status: InvoiceRecord['status']) => {
  const invoice = {
    ...draft,
    id: 'inv_01JAAAAAAAAAAAAAAAAAAAAAAA',
    status,
    provider: 'sandbox',
    external_ref: 'in_1',
    hosted_invoice_url: null,
    created_at: 'c',
    updated_at: 'u',
  };
  table.put({ ...billingKeys.invoice(T, invoice.id), type: 'invoice', ...invoice });
  table.put({ ...billingKeys.providerInvoice('in_1'), tenant_id: T, invoice_id: invoice.id });
  return invoice as InvoiceRecord;
};

describe('drafts', () => {
  it('one draft per period with invoice.created; a second build answers the existing one', async () => {
    const first = await createDraftInvoice(draft, at);
    expect(first).toMatchObject({ created: true, invoice: { status: 'draft', provider: null, total_minor: 4900 } });
    const tx = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(tx[0].Put).toMatchObject({ Item: billingKeys.invoicePeriod(T, '2026-11'), ConditionExpression: 'attribute_not_exists(pk)' });
    expect(JSON.stringify(tx)).toContain('invoice.created');
    const again = await createDraftInvoice(draft, at);
    expect(again).toEqual({ invoice: expect.objectContaining({ id: first.invoice.id }), created: false });
    expect(await invoiceOfPeriod(T, '2026-11')).toMatchObject({ id: first.invoice.id });
    expect(await invoiceOfPeriod(T, '2026-10')).toBeUndefined();
    expect(await getInvoiceRecord(T, 'a#b')).toBeUndefined();
  });

  it("remembers the provider's draft only while a draft", async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(recordProviderDraft({ tenant_id: T, id: 'inv_1' }, 'd_1', at)).resolves.toBeUndefined();
    expect(inputsOf(UpdateCommand)[0]).toMatchObject({ ConditionExpression: '#status = :draft', ExpressionAttributeValues: { ':r': 'd_1' } });
  });
});

describe('opening and provider events', () => {
  it('opens a draft once, with the pointer its webhooks use; false when no longer a draft', async () => {
    const invoice = stored('draft');
    ddb
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejects(transactionCancelled(['ConditionalCheckFailed', 'None', 'None', 'None']));
    const provider = { provider: 'sandbox' as const, external_ref: 'in_1', hosted_invoice_url: 'https://pay', customer_ref: 'cus_1' };
    expect(await openInvoice(invoice, provider as never, at)).toBe(true);
    const [move, pointer, customer] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(move.Update).toMatchObject({ ConditionExpression: '#status = :draft', ExpressionAttributeValues: { ':open': 'open', ':ref': 'in_1' } });
    expect(pointer.Put.Item).toMatchObject({ ...billingKeys.providerInvoice('in_1'), invoice_id: invoice.id });
    expect(customer.Update.UpdateExpression).toBe('SET customer_ref = if_not_exists(customer_ref, :c)');
    expect(await openInvoice(invoice, provider as never, at)).toBe(false);
  });

  it('applies an allowed move with its event guard; a stale one is ignored, a replay a duplicate, a foreign one unknown', async () => {
    stored('open');
    ddb.on(TransactWriteCommand).resolves({});
    expect(await applyProviderInvoiceEvent('evt_1', 'invoice.paid', 'in_1', at)).toEqual({ outcome: 'applied', status: 'paid' });
    const [guard, move, ...outbox] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(guard.Put).toMatchObject({ Item: billingKeys.providerEvent(T, 'evt_1'), ConditionExpression: 'attribute_not_exists(pk)' });
    expect(move.Update.ExpressionAttributeValues).toMatchObject({ ':to': 'paid', ':from': 'open' });
    expect(JSON.stringify(outbox)).toContain('invoice.paid');
    expect(await applyProviderInvoiceEvent('evt_2', 'invoice.finalized', 'in_1', at)).toEqual({ outcome: 'ignored' });
    table.put({ ...billingKeys.providerEvent(T, 'evt_1'), tenant_id: T });
    expect(await applyProviderInvoiceEvent('evt_1', 'invoice.paid', 'in_1', at)).toEqual({ outcome: 'duplicate' });
    expect(await applyProviderInvoiceEvent('evt_3', 'invoice.paid', 'in_unknown', at)).toEqual({ outcome: 'unknown_invoice' });
    expect(await applyProviderInvoiceEvent('evt_3', 'invoice.paid', 'in#1', at)).toEqual({ outcome: 'unknown_invoice' });
  });

  it('reads again after a lost race, and gives up after eight', async () => {
    stored('open');
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ConditionalCheckFailed']));
    await expect(applyProviderInvoiceEvent('evt_1', 'invoice.paid', 'in_1', at)).rejects.toThrow(/busy under every attempt/);
    expect(inputsOf(TransactWriteCommand)).toHaveLength(8);
  });
});

describe('reads', () => {
  it('the newest invoices, and those with a status, across pages', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ id: 'inv_2' }] });
    expect(await recentInvoices(T, 3)).toEqual([{ id: 'inv_2' }]);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({ ScanIndexForward: false, Limit: 3 });
    ddb.reset();
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ id: 'a' }], LastEvaluatedKey: { pk: 'p', sk: 's' } })
      .resolves({ Items: [{ id: 'b' }] });
    expect(await invoicesWithStatus(T, ['open', 'uncollectible'])).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({
      FilterExpression: '#status IN (:s0, :s1)',
      ExpressionAttributeValues: { ':s0': 'open', ':s1': 'uncollectible' },
    });
  });
});
