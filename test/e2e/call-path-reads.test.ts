/**
 * The call path's reads on the local stack: POST /v1/calls and its preflight within their
 * DynamoDB call budgets (counted on the client, nothing else running), and the proof that
 * what is kept between requests (the agent version, by its immutable id) never lets a stale
 * input through: a suppression added between preflight and queue blocks the call, a new
 * publish is judged at once, a number claimed since is a caller at once, and a known number's
 * dial count is read as it is now.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dispatchCall } from '../../shared/calls/dispatch.js';
import { db } from '../../shared/db/client.js';
import { parseDncFile } from '../../shared/policy/dnc/snapshot-file.js';
import { replaceDncSnapshot } from '../../shared/repositories/dnc-snapshots.js';
import { useTestStack } from '../support/stack.js';
import { profileBody } from './agent-fixtures.js';
import { ALLOWED_AT, type CallWorld, callWorld, newContact, queue, resetClock, sandboxCallsFrom, setClock, storedCall } from './call-fixtures.js';
import { client, newTenant } from './client.js';
import { activeNumber, mockAccount, randomNumber } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });

let w: CallWorld;
const sent: string[] = [];
/** Each command's place on the critical path: 1 + the deepest command that had answered when it was sent. */
const depths: number[] = [];
let answered = 0;
beforeAll(async () => {
  const t = await newTenant('Call path reads');
  w = await callWorld(client(stack, t.token), t.tenantId);
  db().middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName).replace(/Command$/, ''));
      const depth = answered + 1;
      depths.push(depth);
      try {
        return await next(args);
      } finally {
        answered = Math.max(answered, depth);
      }
    },
    { step: 'initialize', name: 'callPathReadsCounter' },
  );
});
afterEach(() => resetClock());

/**
 * The DynamoDB commands sent while `fn` runs, sorted, and how many of them were sent one
 * after another (the round trips a request waits for in turn); the stack runs no workers or ticks here.
 */
async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; calls: string[]; sequential: number }> {
  const before = sent.length;
  answered = 0;
  const result = await fn();
  return { result, calls: sent.slice(before).sort(), sequential: Math.max(0, ...depths.slice(before)) };
}

const preflight = (agentId: string, contactId: string, world = w) =>
  world.api('POST', '/v1/calls/preflight', { body: { agent_id: agentId, contact_id: contactId } });

describe('the call path within its DynamoDB budget', () => {
  it('POST /v1/calls (allowed, idempotency key sent) for a contact the instance never judged: 3 calls in turn', async () => {
    setClock(ALLOWED_AT);
    await queue(w.api, { agent_id: w.agentId, contact_id: (await newContact(w.api)).id }); // the instance meets the version and the numbers once
    const c = await newContact(w.api);
    const { result, calls: n, sequential } = await counted(() => queue(w.api, { agent_id: w.agentId, contact_id: c.id }));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ state: 'scheduled', compliance: { outcome: 'allow' } });
    // BatchGet key + tenant + idempotency record + the contact and its day items + the numbers' version and items · BatchGet agent, suppression, DNC pointer, account · the transaction.
    expect(n).toEqual(['BatchGetItem', 'BatchGetItem', 'TransactWriteItems']);
    // The contact and the numbers are read with the credential: three waits.
    expect(sequential).toBe(3);
  });

  it('POST /v1/calls after its preflight: the contact, the point reads and the numbers join the credential read, 2 calls in turn', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    expect((await preflight(w.agentId, c.id)).body).toMatchObject({ outcome: 'allow' });
    const { result, calls: n, sequential } = await counted(() => queue(w.api, { agent_id: w.agentId, contact_id: c.id }));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ state: 'scheduled', compliance: { outcome: 'allow' } });
    // BatchGet key + tenant + idempotency record + the contact and its day items + agent, suppression, DNC pointer, account + the numbers' version and items · the transaction.
    expect(n).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(sequential).toBe(2);
  });

  it('preflight of a marketing call to a US number with a loaded DNC snapshot, judged before: 1 call', async () => {
    setClock(ALLOWED_AT);
    await replaceDncSnapshot('212', '2026-11-01', parseDncFile('2125550100', '212'), new Date());
    const profile = (await w.api('POST', '/v1/compliance-profiles', { body: profileBody({ name: 'Sales', calling_window: undefined }) })).body;
    const agent = (
      await w.api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
        body: { disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' }, compliance_profile_id: profile.id },
      })
    ).body;
    expect((await w.api('POST', `/v1/agents/${agent.id}/publish`)).status).toBe(201);
    const res = await w.api('POST', '/v1/contacts', {
      body: {
        phone_e164: '+12125557788',
        consent: {
          consent_basis: 'pewc',
          captured_at: '2026-10-01T12:00:00Z',
          scope: { purposes: ['product_offers'] },
          evidence: { artifact_type: 'web_form', artifact_ref: 'https://acme.test/1', content_hash: 'a'.repeat(64) },
        },
      },
    });
    expect(res.status).toBe(200);
    await preflight(agent.id, res.body.id); // warm
    const { result, calls: n, sequential } = await counted(() => preflight(agent.id, res.body.id));
    expect(result.status).toBe(200);
    expect(sequential).toBe(1);
    expect(result.body.reasons.map((r: { code: string }) => r.code)).not.toContain('national_dnc');
    // BatchGet key + tenant + the contact and its day items + agent, suppression, DNC pointer, account + the numbers' version and items (the exchange of the pointer's generation is kept).
    expect(n).toEqual(['BatchGetItem']);
  });
});

describe('nothing kept between requests lets a stale input through', () => {
  it('a suppression added between preflight and queue blocks the queued call (dnc_hit), never dialled', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    // The first judgement of this contact: allowed (and the version is now kept by this instance).
    expect((await preflight(w.agentId, c.id)).body).toMatchObject({ outcome: 'allow' });
    expect((await w.api('POST', '/v1/suppressions', { body: { phone_e164: c.phone_e164, reason: 'opt_out' } })).status).toBe(201);
    const res = await queue(w.api, { agent_id: w.agentId, contact_id: c.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'disposed', disposition: 'dnc_hit', compliance: { outcome: 'block', disposition: 'dnc_hit' } });
    expect(await dispatchCall(w.tenantId, res.body.call_id)).toBe('not_scheduled');
    expect((await sandboxCallsFrom(w.number.phone_e164)).filter((x) => x.to === c.phone_e164)).toEqual([]);
    expect((await preflight(w.agentId, c.id)).body).toMatchObject({ outcome: 'block', disposition: 'dnc_hit' });
  });

  it('a new publish is the version judged and pinned on the very next request', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    expect((await preflight(w.agentId, c.id)).body.agent_version_id).toBe(w.versionId);
    expect((await w.api('PATCH', `/v1/agents/${w.agentId}`, { body: { name: `Reminders ${Date.now()}` } })).status).toBe(200);
    const next = await w.api('POST', `/v1/agents/${w.agentId}/publish`);
    expect(next.status).toBe(201);
    expect(next.body.id).not.toBe(w.versionId);
    expect((await preflight(w.agentId, c.id)).body.agent_version_id).toBe(next.body.id);
    const queued = await queue(w.api, { agent_id: w.agentId, contact_id: c.id });
    expect(queued.body.agent_version_id).toBe(next.body.id);
  });

  it('a guess that misses an account added since is read again: the new account number places the call', async () => {
    setClock(ALLOWED_AT);
    const t = await newTenant('Call path guesses');
    const v = await callWorld(client(stack, t.token), t.tenantId);
    const c = await newContact(v.api, randomNumber('718'));
    expect((await preflight(v.agentId, c.id, v)).body).toMatchObject({ outcome: 'allow', caller: { phone_number_id: v.number.id } });
    // A second account and a number in the callee's area code: the guess (one account) no longer names every account.
    const accountId = await mockAccount(v.api);
    const number = await activeNumber(v.api, { accountId, phone: randomNumber('718') });
    const { result, calls: n, sequential } = await counted(() => queue(v.api, { agent_id: v.agentId, contact_id: c.id }));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ state: 'scheduled', compliance: { outcome: 'allow' } });
    expect((await storedCall(t.tenantId, result.body.call_id)).phone_number_id).toBe(number.id);
    // The numbers' version moved (a number was claimed): queried once the credential's read told so, then the point reads, then the transaction.
    expect(n).toEqual(['BatchGetItem', 'BatchGetItem', 'Query', 'TransactWriteItems']);
    expect(sequential).toBe(4);
  });

  it('a number claimed since the instance learned the numbers places the very next call; the call after reads them by key again', async () => {
    setClock(ALLOWED_AT);
    const t = await newTenant('Call path numbers');
    const v = await callWorld(client(stack, t.token), t.tenantId);
    const c = await newContact(v.api, randomNumber('718'));
    expect((await preflight(v.agentId, c.id, v)).body).toMatchObject({ outcome: 'allow', caller: { phone_number_id: v.number.id } });
    // Same account (the point reads' guess still holds), a number in the callee's own area code: the better caller.
    const number = await activeNumber(v.api, { accountId: v.accountId, phone: randomNumber('718') });
    const first = await counted(() => queue(v.api, { agent_id: v.agentId, contact_id: c.id }));
    expect(first.result.body).toMatchObject({ state: 'scheduled', compliance: { outcome: 'allow' } });
    expect((await storedCall(t.tenantId, first.result.body.call_id)).phone_number_id).toBe(number.id);
    expect(first.calls).toEqual(['BatchGetItem', 'Query', 'TransactWriteItems']);
    expect(first.sequential).toBe(3);
    const again = await counted(() => preflight(v.agentId, c.id, v));
    expect(again.result.body).toMatchObject({ outcome: 'allow', caller: { phone_number_id: number.id } });
    expect(again.calls).toEqual(['BatchGetItem']);
  });

  it("a known number's state is read afresh: one that reached its daily cap since no longer places a call", async () => {
    setClock(ALLOWED_AT);
    const t = await newTenant('Call path caps');
    const v = await callWorld(client(stack, t.token), t.tenantId);
    expect((await v.api('PATCH', `/v1/phone-numbers/${v.number.id}`, { body: { daily_dial_cap: 1 } })).status).toBe(200);
    const first = await queue(v.api, { agent_id: v.agentId, contact_id: (await newContact(v.api)).id });
    expect(first.body).toMatchObject({ state: 'scheduled', compliance: { outcome: 'allow' } });
    expect(await dispatchCall(t.tenantId, first.body.call_id)).toBe('dialled');
    const c = await newContact(v.api);
    const { result, calls: n } = await counted(() => preflight(v.agentId, c.id, v));
    expect(result.body).toMatchObject({ outcome: 'defer', reasons: [expect.objectContaining({ code: 'no_caller_number' })] });
    // The number's item came with the credential's read (no Query of the numbers), its dial count as it is now.
    expect(n).toEqual(['BatchGetItem', 'BatchGetItem']);
  });

  it('an Idempotency-Key taken inside the transaction: a replay answers the stored attempt, a failed request leaves the key free', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const key = `k-reads-${Date.now()}`;
    const unknown = await queue(w.api, { agent_id: w.agentId, contact_id: 'con_01JAAAAAAAAAAAAAAAAAAAAAAA' }, key);
    expect(unknown.status).toBe(422);
    const first = await queue(w.api, { agent_id: w.agentId, contact_id: c.id }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replay')).toBeNull();
    const again = await queue(w.api, { agent_id: w.agentId, contact_id: c.id }, key);
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});
