/**
 * `npm run admin -- demo`: the README's walkthrough in one command against the running
 * local stack — a demo tenant and key, a sandbox telephony account and number, a National
 * DNC snapshot for the contact's area code, a contact whose consent matches the agent's
 * purpose, an SDR agent published, a webhook receiver, a preflight, one queued call to a
 * sandbox test number (the sandbox clock moved to its dial time when it was deferred), its
 * progress, its analysed detail, its transcript and the webhooks it produced. Each step is
 * reported through `say` as it happens; the result is one object.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { now } from '../clock.js';
import { parseDncFile } from '../policy/dnc/snapshot-file.js';
import { replaceDncSnapshot } from '../repositories/dnc-snapshots.js';
import { newSandboxCredentials, putSandboxAccount } from '../sandbox/accounts.js';
import { createRepAction, createTenant, OperatorError } from './bootstrap.js';

/** One number per role: the contact is a sandbox test number (a person answers, every question answered). */
const DEMO_CONTACT_E164 = '+12125550100';
const DEMO_AREA_CODE = '212';
const REP_E164 = '+14155550177';

type Json = Record<string, unknown>;

interface DemoOptions {
  baseUrl: string;
  say: (line: string) => void;
  /** How long the call may take to complete and be analysed. */
  timeoutMs?: number;
}

export async function runDemo({ baseUrl, say, timeoutMs = 60_000 }: DemoOptions) {
  const deadline = Date.now() + timeoutMs;
  const tag = randomBytes(3).toString('hex');
  const tenant = await createTenant({ name: `Demo ${tag}`, adminEmail: `demo+${tag}@acme.test` });
  const key = tenant.api_key.secret;
  say(`tenant ${tenant.tenant_id} with an admin API key (KEY=${key})`);

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Json> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new DemoHttpError(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`, res.status);
    return text ? (JSON.parse(text) as Json) : {};
  };

  const creds = newSandboxCredentials();
  await putSandboxAccount(creds);
  const account = await api('POST', '/v1/telephony-accounts', {
    mode: 'byo',
    provider: 'twilio',
    credentials: creds,
    ftc_san_refs: [{ san: 'SANDEMO', area_codes: [DEMO_AREA_CODE, '415'] }],
  });
  const verified = await api('POST', `/v1/telephony-accounts/${account.id}/verify`);
  say(`sandbox telephony account ${account.id}: ${verified.verification_status}`);
  const number = await claimNumber(api, String(account.id));
  say(`caller number ${number.phone_e164} (${number.id})`);

  // A registry download for the contact's area code, as of today, without the contact on it.
  const today = new Date().toISOString().slice(0, 10);
  const lines = Array.from({ length: 100 }, (_, i) => `${DEMO_AREA_CODE}555${String(1000 + i)}`).join('\n');
  await replaceDncSnapshot(DEMO_AREA_CODE, today, parseDncFile(lines, DEMO_AREA_CODE), now());
  say(`National DNC snapshot for ${DEMO_AREA_CODE} as of ${today} (100 numbers; the contact is not listed)`);

  const contact = await api(
    'POST',
    '/v1/contacts',
    {
      phone_e164: DEMO_CONTACT_E164,
      first_name: 'Ada',
      consent: {
        consent_basis: 'pewc',
        captured_at: '2026-11-01T12:00:00Z',
        scope: { purposes: ['product_offers'], channels: ['voice'] },
        evidence: {
          artifact_type: 'web_form',
          artifact_ref: 'https://acme.test/f/1',
          content_hash: '2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881',
        },
      },
    },
    { 'idempotency-key': randomUUID() },
  );
  say(`contact ${contact.id} (${DEMO_CONTACT_E164}, consent for product_offers)`);
  const rep = await createRepAction({ tenantId: tenant.tenant_id, name: 'Dana', transferNumber: REP_E164, disabled: false });
  const profile = await api('POST', '/v1/compliance-profiles', {
    name: 'Outbound sales',
    call_purpose: 'marketing',
    subject: 'product_offers',
    seller_name: 'Acme Solar LLC',
    calling_window: { start: '09:00', end: '20:00' },
  });
  const agent = await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
    name: 'Solar SDR',
    disclosure_config: { business_name: 'Acme Solar' },
    compliance_profile_id: profile.id,
    direct_rep_ids: [rep.rep_id],
  });
  const version = await api('POST', `/v1/agents/${agent.id}/publish`, undefined, { 'idempotency-key': randomUUID() });
  say(`agent ${agent.id} from tpl_sdr_outbound, published as version ${version.version}`);

  const receiver = await startReceiver();
  try {
    await api('PUT', '/v1/webhook-endpoint', { url: receiver.url });
    say(`webhook endpoint ${receiver.url} (a receiver in this process)`);

    const preflight = await api('POST', '/v1/calls/preflight', { agent_id: agent.id, contact_id: contact.id });
    say(`preflight: ${preflight.outcome}${preflight.next_permitted_at ? ` until ${preflight.next_permitted_at}` : ''}`);
    const queued = await api(
      'POST',
      '/v1/calls',
      { agent_id: agent.id, contact_id: contact.id, questions: [{ id: 'budget', prompt: 'What budget do you have in mind?' }] },
      { 'idempotency-key': randomUUID() },
    );
    say(`call ${queued.call_id} queued: ${queued.state}, scheduled_for ${queued.scheduled_for}`);
    const clock = (await (
      await fetch(`${baseUrl}/local/sandbox-clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advance_to: queued.scheduled_for }),
      })
    ).json()) as Json;
    if (clock.advanced) say(`SANDBOX CLOCK moved to ${clock.now} (the call was deferred by calling hours; the local stack now runs ahead of the wall clock)`);

    let call: Json = {};
    let seen = '';
    while (call.state !== 'completed' || call.analysis === null) {
      if (Date.now() > deadline) throw new OperatorError(`call ${queued.call_id} is still ${call.state} after ${timeoutMs / 1000} s`);
      call = await api('GET', `/v1/calls/${queued.call_id}`);
      if (call.state !== seen) say(`call ${call.state}`);
      seen = String(call.state);
      if (['failed', 'busy', 'no_answer', 'disposed', 'canceled'].includes(seen))
        throw new OperatorError(`call ${queued.call_id} ended ${seen} (${call.end_reason})`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const analysis = call.analysis as { success_evaluation?: { verdict?: string } };
    say(`completed: ${call.disposition}, ${call.duration_seconds} s, analysis ${analysis.success_evaluation?.verdict}`);
    const transcript = ((await api('GET', `/v1/calls/${queued.call_id}/transcript?limit=200`)).data as { speaker: string; text: string }[]).map(
      (t) => `${t.speaker}: ${t.text}`,
    );
    for (const line of transcript) say(`  ${line}`);
    while (!receiver.types().includes('call.analysis_ready') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const webhooks = [...new Set(receiver.types())].sort();
    say(`webhooks received: ${webhooks.join(', ')}`);
    return {
      tenant_id: tenant.tenant_id,
      api_key: tenant.api_key,
      agent_id: agent.id,
      contact_id: contact.id,
      call_id: queued.call_id,
      state: call.state,
      disposition: call.disposition,
      verdict: analysis.success_evaluation?.verdict ?? null,
      sandbox_clock_advanced: clock.advanced === true,
      transcript,
      webhooks,
    };
  } finally {
    await receiver.close();
  }
}

class DemoHttpError extends OperatorError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A number nobody holds: numbers are platform-wide, so a second demo takes the next one. */
async function claimNumber(api: (m: string, p: string, b?: unknown) => Promise<Json>, accountId: string): Promise<Json> {
  for (let sub = 150; sub < 200; sub++) {
    try {
      return await api('POST', '/v1/phone-numbers', { phone_e164: `+14155550${sub}`, telephony_account_id: accountId });
    } catch (err) {
      if (!(err instanceof DemoHttpError) || err.status !== 409) throw err;
    }
  }
  throw new OperatorError('every demo caller number +1 415 555 0150–0199 is taken on this stack');
}

async function startReceiver() {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bodies.push(body);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    types: () => bodies.map((b) => String((JSON.parse(b) as Json).type)),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
