/**
 * POST /v1/calls/preflight through the local runtime (real HTTP, real handler, DynamoDB
 * Local) next to GET /v1/contacts/{id} on the same stack, and the DynamoDB calls each makes.
 * The preflight is the costliest ordinary case: a marketing call to a US number with a
 * loaded National DNC snapshot, a SAN, a pewc consent and recent attempts, so every read
 * the engine needs happens.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../infra/local/stack.js';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { db } from '../../shared/db/client.js';
import { newId } from '../../shared/ids.js';
import { parseDncFile } from '../../shared/policy/dnc/snapshot-file.js';
import { attemptPlacedItems, contactAttemptPut } from '../../shared/repositories/contact-attempts.js';
import { replaceDncSnapshot } from '../../shared/repositories/dnc-snapshots.js';
import { seedPlatformData } from '../../shared/seed/platform.js';
import { requestJson } from './http-client.js';
import { fmt, percentile } from './stats.js';

export interface PreflightFigures {
  requests: number;
  preflightP50: number;
  preflightP99: number;
  contactP50: number;
  contactP99: number;
  callsPerPreflight: number;
  callsPerContactRead: number;
}

export async function measurePreflight(stack: LocalStack, requests = 500): Promise<PreflightFigures> {
  await seedPlatformData(); // the template the agent is made from
  const t = await createTenant({ name: 'Bench preflight', adminEmail: 'preflight@bench.test' });
  const headers = { authorization: `Bearer ${t.api_key.secret}`, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown) => {
    const { status, json } = await requestJson(stack.baseUrl, method, path, { headers, body });
    if (status >= 300) throw new Error(`${method} ${path} answered ${status}: ${JSON.stringify(json)}`);
    return json as Record<string, any>;
  };

  await replaceDncSnapshot('212', new Date().toISOString().slice(0, 10), parseDncFile('2125550100\n2125550101', '212'), new Date());
  const account = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'mock', ftc_san_refs: [{ san: 'SAN-BENCH', area_codes: ['212'] }] });
  await api('POST', `/v1/telephony-accounts/${account.id}/verify`);
  await api('POST', '/v1/phone-numbers', { phone_e164: '+12125559000', telephony_account_id: account.id });
  await api('POST', '/v1/phone-numbers', { phone_e164: '+14155559000', telephony_account_id: account.id });
  const profile = await api('POST', '/v1/compliance-profiles', {
    name: 'Bench',
    call_purpose: 'marketing',
    subject: 'product_offers',
    seller_name: 'Acme Solar LLC',
  });
  const agent = await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
    disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' },
    compliance_profile_id: profile.id,
  });
  await api('POST', `/v1/agents/${agent.id}/publish`);
  const contact = await api('POST', '/v1/contacts', {
    phone_e164: '+12125550199',
    consent: {
      consent_basis: 'pewc',
      captured_at: '2026-01-01T00:00:00Z',
      scope: { purposes: ['product_offers'] },
      evidence: { artifact_type: 'web_form', artifact_ref: 'https://bench.test/1', content_hash: 'a'.repeat(64) },
    },
  });
  // Two calls placed an hour ago, as the dial places them (queued, then placed): the cap's input holds two.
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  for (let i = 0; i < 2; i++) {
    const attempt = { id: newId('att'), tenant_id: t.tenant_id, contact_id: contact.id, subject: 'product_offers' };
    await db().send(new TransactWriteCommand({ TransactItems: [contactAttemptPut({ ...attempt, placed_at: null, created_at: hourAgo })] }));
    await db().send(new TransactWriteCommand({ TransactItems: attemptPlacedItems({ ...attempt, attempt_id: attempt.id }, hourAgo) }));
  }

  let calls = 0;
  db().middlewareStack.add(
    (next) => async (args) => {
      calls++;
      return next(args);
    },
    { step: 'initialize', name: 'benchPreflightCallCounter' },
  );
  const body = JSON.stringify({ agent_id: agent.id, contact_id: contact.id });
  const preflight = async () => {
    const { status, json } = await requestJson(stack.baseUrl, 'POST', '/v1/calls/preflight', { headers, body });
    if (status !== 200) throw new Error(`preflight answered ${status}: ${JSON.stringify(json)}`);
  };
  const getContact = async () => {
    const { status } = await requestJson(stack.baseUrl, 'GET', `/v1/contacts/${contact.id}`, { headers });
    if (status !== 200) throw new Error(`GET /v1/contacts answered ${status}`);
  };
  const time = async (fn: () => Promise<void>) => {
    const s = performance.now();
    await fn();
    return performance.now() - s;
  };
  const run = async (fn: () => Promise<void>) => {
    for (let i = 0; i < 50; i++) await fn(); // warm: module load, connections, JIT
    calls = 0;
    const times: number[] = [];
    for (let i = 0; i < requests; i++) times.push(await time(fn));
    return { times, calls: calls / requests };
  };
  // Interleave nothing: each endpoint gets its own sequential run on the same stack.
  const p = await run(preflight);
  const c = await run(getContact);
  return {
    requests,
    preflightP50: percentile(p.times, 50),
    preflightP99: percentile(p.times, 99),
    contactP50: percentile(c.times, 50),
    contactP99: percentile(c.times, 99),
    callsPerPreflight: p.calls,
    callsPerContactRead: c.calls,
  };
}

export function printPreflight(f: PreflightFigures): void {
  console.log(
    `\nPOST /v1/calls/preflight vs GET /v1/contacts/{id}, local runtime, ${f.requests} sequential requests each (marketing call, US number, DNC snapshot, SAN, pewc, 2 recent attempts)`,
  );
  console.log(
    `  POST /v1/calls/preflight   p50 ${fmt(f.preflightP50, 2)} ms   p99 ${fmt(f.preflightP99, 2)} ms   DynamoDB calls/request ${fmt(f.callsPerPreflight, 2)} (1 is the API-key check)`,
  );
  console.log(
    `  GET /v1/contacts/{id}      p50 ${fmt(f.contactP50, 2)} ms   p99 ${fmt(f.contactP99, 2)} ms   DynamoDB calls/request ${fmt(f.callsPerContactRead, 2)}`,
  );
}
