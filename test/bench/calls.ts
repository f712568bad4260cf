/**
 * Queue and dispatch (issue 10) on the local runtime with its workers: 500 calls queued to
 * sandbox test numbers (busy: the carrier ends them at once) on an account with cps_limit
 * 10, and the time until every one is dialled and every one is terminal, next to the least
 * time the cap allows (500 / 10 s); POST /v1/calls p50/p99 next to a raw TransactWriteItems
 * of the same items; DynamoDB calls per queued call (measured on deferred calls, so no
 * dispatch runs meanwhile).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { minimumSpanSeconds } from '../../shared/calls/cps-limiter.js';
import { setClockOffsetForTests } from '../../shared/clock.js';
import { db, tableName } from '../../shared/db/client.js';
import { callKeys, keys } from '../../shared/db/keys.js';
import { outboxItems } from '../../shared/events/outbox.js';
import { newId } from '../../shared/ids.js';
import { isTerminal, type CallState } from '../../shared/policy/call-state/machine.js';
import { contactAttemptPut } from '../../shared/repositories/contact-attempts.js';
import { dueItemPut, outboundCallPut, type OutboundCallRecord } from '../../shared/repositories/outbound-calls.js';
import { seedPlatformData } from '../../shared/seed/platform.js';
import type { LocalStack } from '../../infra/local/stack.js';
import { fmt, percentile, pool } from './stats.js';

export interface CallsFigures {
  calls: number;
  cps: number;
  queuedSeconds: number;
  floorSeconds: number;
  allDialledSeconds: number;
  terminal: number;
  allTerminalSeconds: number | null;
  queueP50: number;
  queueP99: number;
  rawP50: number;
  rawP99: number;
  callsPerQueued: number;
}

const setClock = (iso: string) => setClockOffsetForTests(Date.parse(iso) - Date.now());

export async function measureCalls(stack: LocalStack, total = 500, cps = 10): Promise<CallsFigures> {
  await seedPlatformData();
  const t = await createTenant({ name: 'Bench calls', adminEmail: 'calls@bench.test' });
  const auth = { authorization: `Bearer ${t.api_key.secret}`, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { method, headers: { ...auth, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json as Record<string, any>;
  };
  const account = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'mock' });
  await api('POST', `/v1/telephony-accounts/${account.id}/verify`);
  await db().send(new UpdateCommand({ TableName: tableName(), Key: keys.telephonyAccount(t.tenant_id, account.id), UpdateExpression: 'SET cps_limit = :c', ExpressionAttributeValues: { ':c': cps } }));
  await api('POST', '/v1/phone-numbers', { phone_e164: '+12125559100', telephony_account_id: account.id });
  const profile = await api('POST', '/v1/compliance-profiles', { name: 'Bench reminders', call_purpose: 'informational', subject: 'appointment_reminders', seller_name: 'Acme Solar LLC' });
  const agent = await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', { disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' }, compliance_profile_id: profile.id });
  await api('POST', `/v1/agents/${agent.id}/publish`);
  const evidence = { artifact_type: 'web_form', artifact_ref: 'https://bench.test/1', content_hash: 'a'.repeat(64) };
  // Busy test numbers (…555-0120) in New York area codes: the sandbox ends each call at once.
  const contacts: Record<string, any>[] = [];
  for (const npa of ['212', '718', '917', '646', '347', '929', '516', '914', '631', '845']) {
    contacts.push(await api('POST', '/v1/contacts', { phone_e164: `+1${npa}5550120`, consent: { consent_basis: 'pewc', captured_at: '2026-01-01T00:00:00Z', scope: { purposes: ['appointment_reminders'] }, evidence } }));
  }
  const queue = async (i: number) => api('POST', '/v1/calls', { agent_id: agent.id, contact_id: contacts[i % contacts.length]!.id }, { 'idempotency-key': randomUUID() });
  const time = async (fn: () => Promise<unknown>) => {
    const s = performance.now();
    await fn();
    return performance.now() - s;
  };

  // 1. DynamoDB calls per queued call: deferred calls (Mon 22:00 in New York, due Tue 08:00), so no dispatch runs.
  let dynamoCalls = 0;
  db().middlewareStack.add((next) => async (args) => { dynamoCalls++; return next(args); }, { step: 'initialize', name: 'benchCallsCounter' });
  setClock('2026-11-17T03:00:00.000Z');
  for (let i = 0; i < 20; i++) await queue(i); // warm
  dynamoCalls = 0;
  const queueTimes: number[] = [];
  for (let i = 0; i < 200; i++) queueTimes.push(await time(() => queue(i)));
  const callsPerQueued = dynamoCalls / 200;

  // 2. A raw TransactWriteItems of the same items (call, attempt, idempotency record, 2 events + markers, due item).
  const rawTimes: number[] = [];
  for (let i = 0; i < 200; i++) {
    const at = new Date();
    const call = { id: newId('cal'), tenant_id: t.tenant_id, attempt_id: newId('att'), contact_id: contacts[0]!.id, direction: 'outbound', state: 'scheduled', questions: [], context: {}, created_at: at.toISOString(), updated_at: at.toISOString() } as unknown as OutboundCallRecord;
    const items = [
      outboundCallPut(call),
      contactAttemptPut({ id: call.attempt_id, tenant_id: t.tenant_id, contact_id: call.contact_id, subject: 'appointment_reminders', placed_at: null, created_at: at.toISOString() }),
      { Put: { TableName: tableName(), Item: { ...keys.idempotency(t.tenant_id, 'queueCall', randomUUID()), status: 'completed', response: '{}' } } },
      ...outboxItems(t.tenant_id, 'call.queued', { call_id: call.id }, at).items,
      ...outboxItems(t.tenant_id, 'call.scheduled', { call_id: call.id }, at).items,
      dueItemPut(call, '2099-01-01T00:00:00.000Z'),
    ];
    const ms = await time(() => db().send(new TransactWriteCommand({ TransactItems: items })));
    if (i >= 20) rawTimes.push(ms);
  }

  // 3. 500 calls at an allowed time (Mon 10:00 in New York, before the deferred ones fall due), 10 in flight, while the workers dial.
  setClock('2026-11-16T15:00:00.000Z');
  const started = performance.now();
  const ids: string[] = new Array<string>(total);
  await pool(Array.from({ length: total }, (_, i) => i), 10, async (i) => {
    ids[i] = (await queue(i)).call_id as string;
  });
  const queuedSeconds = (performance.now() - started) / 1000;
  const read = async (id: string) => (await db().send(new GetCommand({ TableName: tableName(), Key: callKeys.call(t.tenant_id, id), ConsistentRead: true }))).Item as { state: CallState; provider_call_sid: string | null; dialing_at: string | null } | undefined;
  let allDialledSeconds = NaN;
  let allTerminalSeconds: number | null = null;
  let terminal = 0;
  const deadline = performance.now() + Math.max(180_000, minimumSpanSeconds(total, cps) * 3000);
  while (performance.now() < deadline) {
    const states = new Array<Awaited<ReturnType<typeof read>>>(ids.length);
    await pool(ids, 20, async (id, i) => {
      states[i] = await read(id);
    });
    const dialled = states.filter((s) => s && (s.provider_call_sid || isTerminal(s.state))).length;
    terminal = states.filter((s) => s && isTerminal(s.state)).length;
    if (dialled === ids.length && Number.isNaN(allDialledSeconds)) allDialledSeconds = (performance.now() - started) / 1000;
    if (terminal === ids.length) {
      allTerminalSeconds = (performance.now() - started) / 1000;
      break;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  setClockOffsetForTests(0);
  return {
    calls: total,
    cps,
    queuedSeconds,
    floorSeconds: total / cps,
    allDialledSeconds,
    terminal,
    allTerminalSeconds,
    queueP50: percentile(queueTimes, 50),
    queueP99: percentile(queueTimes, 99),
    rawP50: percentile(rawTimes, 50),
    rawP99: percentile(rawTimes, 99),
    callsPerQueued,
  };
}

export function printCalls(f: CallsFigures): void {
  console.log(`\nQueue and dispatch: ${f.calls} calls to sandbox busy numbers, cps_limit ${f.cps}, local runtime with its workers`);
  console.log(`  all queued after ${fmt(f.queuedSeconds, 1)} s (10 requests in flight)`);
  console.log(`  all dialled after ${fmt(f.allDialledSeconds, 1)} s   (the cap allows no less than ${fmt(f.floorSeconds, 0)} s: ratio ${fmt(f.allDialledSeconds / f.floorSeconds, 2)})`);
  console.log(
    f.allTerminalSeconds === null
      ? `  terminal: ${f.terminal} of ${f.calls} within the bound (the rest await the carrier lifecycle)`
      : `  all terminal after ${fmt(f.allTerminalSeconds, 1)} s   (ratio ${fmt(f.allTerminalSeconds / f.floorSeconds, 2)})`,
  );
  console.log(`  POST /v1/calls            p50 ${fmt(f.queueP50, 2)} ms   p99 ${fmt(f.queueP99, 2)} ms   (200 sequential, deferred calls: no dispatch running)`);
  console.log(`  raw TransactWriteItems    p50 ${fmt(f.rawP50, 2)} ms   p99 ${fmt(f.rawP99, 2)} ms   (the same 8 items)`);
  console.log(`  DynamoDB calls per queued call ${fmt(f.callsPerQueued, 2)} (API-key check, idempotency claim, judge reads, account read, the transaction)`);
}
