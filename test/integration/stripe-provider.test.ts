/**
 * The Stripe adapter (shared/billing/payment-provider.ts) against a local stand-in for
 * Stripe's REST API: the calls it makes, their amounts, and the idempotency keys that make a
 * retried period close bill once. (The webhook verifier is checked against the library's
 * signer in test/unit/webhook-signature.test.ts.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeProvider } from '../../shared/billing/payment-provider.js';

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  form: Record<string, string>;
}
const seen: Seen[] = [];
const stand = {
  customers: 0,
  invoices: 0,
  items: [] as { id: string; invoice: string | undefined; amount: number; metadata: { line: string | undefined } }[],
  invoiceStatus: new Map<string, string>(),
  failFinalize: 0,
};
let server: Server;
let base: URL;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url!.split('?')[0]!;
      seen.push({
        method: req.method!,
        path,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        form: Object.fromEntries(new URLSearchParams(body)),
      });
      const json = (o: unknown, status = 200) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_test' });
        res.end(JSON.stringify(o));
      };
      const form = seen.at(-1)!.form;
      // Stateful like Stripe, but idempotency keys are not remembered (as after Stripe's 24 h window): every create makes a new object.
      if (path === '/v1/customers' && req.method === 'POST') return json({ id: `cus_test${++stand.customers}`, object: 'customer' });
      if (path === '/v1/invoices' && req.method === 'POST') {
        const id = `in_test${++stand.invoices}`;
        stand.invoiceStatus.set(id, 'draft');
        return json({ id, object: 'invoice', status: 'draft' });
      }
      if (path === '/v1/invoiceitems' && req.method === 'POST') {
        const item = {
          id: `ii_${seen.length}`,
          object: 'invoiceitem',
          invoice: form.invoice,
          amount: Number(form.amount),
          metadata: { line: form['metadata[line]'] },
        };
        stand.items.push(item);
        return json(item);
      }
      if (path === '/v1/invoiceitems' && req.method === 'GET') {
        const invoice = new URLSearchParams(req.url!.split('?')[1]).get('invoice');
        return json({ object: 'list', url: '/v1/invoiceitems', has_more: false, data: stand.items.filter((i) => i.invoice === invoice) });
      }
      const one = /^\/v1\/invoices\/(in_test\d+)(\/finalize)?$/.exec(path);
      if (one && stand.invoiceStatus.has(one[1]!)) {
        const id = one[1]!;
        if (one[2]) {
          if (stand.failFinalize > 0) {
            stand.failFinalize--;
            return json({ error: { message: 'try later', type: 'invalid_request_error' } }, 400);
          }
          stand.invoiceStatus.set(id, 'open');
        }
        return json({
          id,
          object: 'invoice',
          status: stand.invoiceStatus.get(id),
          hosted_invoice_url: stand.invoiceStatus.get(id) === 'open' ? 'https://invoice.stripe.com/i/test' : null,
        });
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'no such route', type: 'invalid_request_error' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const request = {
  invoice_id: 'inv_01TEST',
  tenant_id: 'ten_01TEST',
  tenant_name: 'Acme',
  currency: 'usd',
  period: '2026-11',
  total_minor: 5500,
  customer_ref: null,
  line_items: [
    { kind: 'base_price' as const, meter: null, description: 'Starter plan', quantity: '1', unit_amount_minor: '4900', amount_minor: 4900 },
    {
      kind: 'minutes' as const,
      meter: 'telephony_minutes' as const,
      description: 'Telephony minutes beyond 100 included',
      quantity: '50',
      unit_amount_minor: null,
      amount_minor: 600,
    },
  ],
};

describe('the Stripe adapter', () => {
  it('creates the customer, a send_invoice draft, one item per line and finalizes it, each call under an idempotency key from our invoice id', async () => {
    const out = await stripeProvider('sk_test_local', base).finalizeInvoice(request);
    expect(out).toEqual({ provider: 'stripe', customer_ref: 'cus_test1', external_ref: 'in_test1', hosted_invoice_url: 'https://invoice.stripe.com/i/test' });
    expect(seen.map((s) => [s.method, s.path, s.idempotencyKey])).toEqual([
      ['POST', '/v1/customers', 'customer-ten_01TEST'],
      ['POST', '/v1/invoices', 'invoice-inv_01TEST'],
      ['POST', '/v1/invoiceitems', 'invoice-inv_01TEST-line-0'],
      ['POST', '/v1/invoiceitems', 'invoice-inv_01TEST-line-1'],
      ['POST', '/v1/invoices/in_test1/finalize', 'invoice-inv_01TEST-finalize'],
    ]);
    expect(seen[1]!.form).toMatchObject({
      customer: 'cus_test1',
      currency: 'usd',
      collection_method: 'send_invoice',
      'metadata[invoice_id]': 'inv_01TEST',
      'metadata[tenant_id]': 'ten_01TEST',
    });
    expect(seen.slice(2, 4).map((s) => [s.form.amount, s.form.invoice])).toEqual([
      ['4900', 'in_test1'],
      ['600', 'in_test1'],
    ]);
  });

  it('reuses the tenant’s recorded customer', async () => {
    seen.length = 0;
    await stripeProvider('sk_test_local', base).finalizeInvoice({ ...request, customer_ref: 'cus_known' });
    expect(seen.map((s) => s.path)).not.toContain('/v1/customers');
    expect(seen[0]!.form.customer).toBe('cus_known');
  });

  it('a retry past Stripe’s idempotency window reuses the customer and draft recorded on our side as soon as they were created: no second customer, invoice or line', async () => {
    seen.length = 0;
    const provider = stripeProvider('sk_test_local', base);
    const recorded: { customer: string | null; draft: string | null } = { customer: null, draft: null };
    const record = {
      customer: async (ref: string) => {
        recorded.customer = ref;
      },
      draft: async (ref: string) => {
        recorded.draft = ref;
      },
    };
    stand.failFinalize = 1;
    await expect(provider.finalizeInvoice({ ...request, invoice_id: 'inv_02RETRY', record })).rejects.toThrow(/try later/);
    expect(recorded.customer).toMatch(/^cus_test\d+$/);
    expect(recorded.draft).toMatch(/^in_test\d+$/);
    const customersBefore = stand.customers;
    const invoicesBefore = stand.invoices;
    // Days later: the stand-in has forgotten every idempotency key; what we recorded is passed back in.
    seen.length = 0;
    const out = await provider.finalizeInvoice({
      ...request,
      invoice_id: 'inv_02RETRY',
      customer_ref: recorded.customer,
      provider_draft_ref: recorded.draft,
      record,
    });
    expect(out).toEqual({
      provider: 'stripe',
      customer_ref: recorded.customer,
      external_ref: recorded.draft,
      hosted_invoice_url: 'https://invoice.stripe.com/i/test',
    });
    expect([stand.customers, stand.invoices]).toEqual([customersBefore, invoicesBefore]);
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ['GET', `/v1/invoices/${recorded.draft}`],
      ['GET', '/v1/invoiceitems'],
      ['POST', `/v1/invoices/${recorded.draft}/finalize`],
    ]);
    expect(stand.items.filter((i) => i.invoice === recorded.draft).map((i) => [i.metadata.line, i.amount])).toEqual([
      ['0', 4900],
      ['1', 600],
    ]);
    // Asked once more after it opened: the finalized invoice is answered, nothing is created.
    seen.length = 0;
    expect(
      await provider.finalizeInvoice({ ...request, invoice_id: 'inv_02RETRY', customer_ref: recorded.customer, provider_draft_ref: recorded.draft, record }),
    ).toEqual(out);
    expect(seen.map((s) => s.method)).toEqual(['GET']);
  });
});
