import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.js';
import { getCallBySid } from '../../shared/repositories/calls.js';
import type { CallRecordWithEvents } from '../../shared/repositories/runtime-events.js';
import { profileBody } from '../e2e/agent-fixtures.js';
import { emulatorEndpoints, uniqueSuffix } from '../support/environment.js';
import { waitFor } from '../support/wait-for.js';

const root = resolve(import.meta.dirname, '..', '..');
let stack: LocalStack;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vc-admin-'));
  const { dynamoEndpoint, sqsEndpoint } = emulatorEndpoints();
  stack = await startLocalStack({
    port: 0,
    dataDir: dir,
    dynamoEndpoint,
    sqsEndpoint,
    tableName: `admin-${uniqueSuffix()}`,
    queueNamePrefix: `admin-${uniqueSuffix()}-`,
    workers: false,
  });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const admin = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args, '--local-dir', dir], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });

/** The CLI without blocking this process (the server it calls runs here too). */
const adminAsync = (...args: string[]) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', ...args, '--local-dir', dir],
      { cwd: root, encoding: 'utf8', env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } },
      (err, stdout, stderr) => done({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('operator CLI against the running local stack', () => {
  it('tenant create prints exactly one JSON object whose key works against the API', async () => {
    const out = admin('tenant', 'create', '--name', 'Acme', '--admin-email', 'ops@acme.test');
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]!) as { tenant_id: string; user_id: string; api_key: { id: string; secret: string } };
    expect(Object.keys(created).sort()).toEqual(['api_key', 'tenant_id', 'user_id']);
    expect(created.api_key.secret).toMatch(/^vak_ten_/);
    const me = await fetch(`${stack.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${created.api_key.secret}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { tenant: { id: string } }).tenant.id).toBe(created.tenant_id);

    const user = admin('user', 'create', '--tenant', created.tenant_id, '--email', 'm@acme.test', '--role', 'manager');
    expect(JSON.parse(user.stdout)).toMatchObject({ tenant_id: created.tenant_id, email: 'm@acme.test', role: 'manager' });
    const again = admin('user', 'create', '--tenant', created.tenant_id, '--email', 'M@acme.test');
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('already exists');

    const key = admin('api-key', 'create', '--tenant', created.tenant_id, '--name', 'CI', '--role', 'member');
    const minted = JSON.parse(key.stdout) as { api_key: { secret: string; role: string } };
    expect(minted.api_key.role).toBe('member');
    const meAsMember = await fetch(`${stack.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${minted.api_key.secret}` } });
    expect(((await meAsMember.json()) as { role: string }).role).toBe('member');
  });

  it('refuses bad input with a message and a non-zero exit, writing nothing', () => {
    expect(admin('tenant', 'create', '--name', 'X').status).toBe(2);
    expect(admin('tenant', 'create', '--name', 'X', '--admin-email', 'nope').status).toBe(2);
    expect(admin('api-key', 'create', '--tenant', 'ten_01JZZZZZZZZZZZZZZZZZZZZZZZ', '--name', 'k').stderr).toContain('does not exist');
    expect(admin('api-key', 'create', '--tenant', 'ten_01JZZZZZZZZZZZZZZZZZZZZZZZ', '--name', 'k', '--role', 'owner').status).toBe(2);
  });

  it('rep create / disable / enable print one JSON object; the number never appears in /v1/reps', async () => {
    const tenant = JSON.parse(admin('tenant', 'create', '--name', 'Reps', '--admin-email', 'reps@acme.test').stdout) as {
      tenant_id: string;
      api_key: { secret: string };
    };
    const out = admin('rep', 'create', '--tenant', tenant.tenant_id, '--name', 'Dana', '--transfer-number', '+14155550123');
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim().split('\n')).toHaveLength(1);
    const created = JSON.parse(out.stdout) as { rep_id: string };
    expect(Object.keys(created)).toEqual(['rep_id']);
    expect(created.rep_id).toMatch(/^rep_/);
    const reps = async () => {
      // A fresh connection each time (agent: false): spawnSync blocks this process, server
      // included, so a pooled keep-alive socket can be closed under a reused request.
      const text = await new Promise<string>((ok, fail) => {
        get(`${stack.baseUrl}/v1/reps`, { agent: false, headers: { authorization: `Bearer ${tenant.api_key.secret}` } }, (res) => {
          let body = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (body += c))
            .on('end', () => ok(body));
        }).on('error', fail);
      });
      expect(text).not.toContain('4155550123');
      return (JSON.parse(text) as { data: { id: string; status: string; transfer_enabled: boolean }[] }).data;
    };
    expect(await reps()).toEqual([expect.objectContaining({ id: created.rep_id, status: 'active', transfer_enabled: true })]);
    expect(JSON.parse(admin('rep', 'disable', '--tenant', tenant.tenant_id, '--rep', created.rep_id).stdout)).toEqual({
      rep_id: created.rep_id,
      status: 'disabled',
    });
    expect((await reps())[0]!.status).toBe('disabled');
    expect(JSON.parse(admin('rep', 'enable', '--tenant', tenant.tenant_id, '--rep', created.rep_id).stdout)).toEqual({
      rep_id: created.rep_id,
      status: 'active',
    });
    const disabled = JSON.parse(
      admin('rep', 'create', '--tenant', tenant.tenant_id, '--name', 'Off', '--transfer-number', '+14155550124', '--disabled').stdout,
    ) as { rep_id: string };
    expect((await reps()).find((r) => r.id === disabled.rep_id)?.status).toBe('disabled');

    expect(admin('rep', 'create', '--tenant', tenant.tenant_id, '--name', 'X', '--transfer-number', '4155550123').status).toBe(2);
    expect(admin('rep', 'disable', '--tenant', tenant.tenant_id, '--rep', 'rep_01JZZZZZZZZZZZZZZZZZZZZZZZ').stderr).toContain('does not exist');
  });

  it('seed is idempotent: a second run writes nothing', () => {
    const out = admin('seed');
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ written: 0, existing: expect.any(Number) });
  });
});

describe('sandbox credentials', () => {
  /** Exactly as the README has a developer type it: `npm run --silent admin -- sandbox credentials …`. */
  const credentials = (...args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
      execFile(
        'npm',
        ['run', '--silent', 'admin', '--', 'sandbox', 'credentials', ...args, '--local-dir', dir],
        { cwd: root, encoding: 'utf8', env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } },
        (err, stdout, stderr) => done({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('prints {account_sid, auth_token} that the local sandbox accepts as a byo twilio account: it verifies and buys a number', async () => {
    const out = await credentials();
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const creds = JSON.parse(lines[0]!) as { account_sid: string; auth_token: string };
    expect(Object.keys(creds).sort()).toEqual(['account_sid', 'auth_token']);
    expect(creds.account_sid).toMatch(/^AC[0-9a-f]{32}$/);
    expect(creds.auth_token).toMatch(/^[0-9a-f]{32}$/);

    const tenant = JSON.parse((await adminAsync('tenant', 'create', '--name', 'Byo', '--admin-email', 'byo@acme.test')).stdout) as {
      api_key: { secret: string };
    };
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.api_key.secret}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const created = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'twilio', credentials: creds });
    expect(created).toMatchObject({ status: 201, body: { provider: 'twilio', credentials_stored: true, verification_status: 'pending' } });
    const verified = await api('POST', `/v1/telephony-accounts/${created.body.id}/verify`);
    expect(verified).toMatchObject({ status: 200, body: { verification_status: 'verified', cps_limit: 1 } });
    const number = await api('POST', '/v1/phone-numbers', { phone_e164: '+14155550177', telephony_account_id: created.body.id });
    expect(number).toMatchObject({ status: 200, body: { status: 'active', provider_sid: expect.stringMatching(/^PN/) } });
    // The carrier itself answers those credentials, in Twilio's shape.
    const direct = await fetch(`${stack.baseUrl}/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}.json`, {
      headers: { authorization: `Basic ${Buffer.from(`${creds.account_sid}:${creds.auth_token}`).toString('base64')}` },
    });
    expect(await direct.json()).toMatchObject({ sid: creds.account_sid, status: 'active' });

    // Each run is a new account; --status makes one the carrier reports suspended.
    const suspended = JSON.parse((await credentials('--status', 'suspended')).stdout) as { account_sid: string; auth_token: string };
    expect(suspended.account_sid).not.toBe(creds.account_sid);
    const other = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'twilio', credentials: suspended });
    expect((await api('POST', `/v1/telephony-accounts/${other.body.id}/verify`)).body.verification_status).toBe('suspended');
    const bad = await credentials('--status', 'frozen');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--status must be one of active, suspended, closed');
    expect(bad.stdout).toBe('');
  });
});

describe('sandbox call', () => {
  it('places an inbound call through the sandbox carrier and prints the path it took', async () => {
    const tenant = JSON.parse((await adminAsync('tenant', 'create', '--name', 'Calls', '--admin-email', 'calls@acme.test')).stdout) as {
      api_key: { secret: string };
    };
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.api_key.secret}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as Record<string, any>;
    };
    const account = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'mock' });
    await api('POST', `/v1/telephony-accounts/${account.id}/verify`);
    const number = await api('POST', '/v1/phone-numbers', { phone_e164: '+14155550142', telephony_account_id: account.id });
    await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, {
      timezone: 'UTC',
      open_steps: [
        { prompt: 'Press 2 for a message.', branches: { '2': [{ type: 'voicemail', greeting: 'Speak now.' }] }, timeout_branch: [{ type: 'hangup' }] },
      ],
    });
    const out = await adminAsync('sandbox', 'call', '--to', '+14155550142', '--from', '+12125550123', '--digits', '2');
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const call = JSON.parse(lines[0]!) as { outcome: string; path: { verb: string; pressed?: string; text?: string }[] };
    expect(call.outcome).toBe('completed');
    expect(call.path.map((p) => p.verb)).toEqual(['Gather', 'Say', 'Record', 'Say', 'Hangup']);
    expect(call.path[0]).toMatchObject({ pressed: '2' });
    expect(call.path[1]).toMatchObject({ text: 'Speak now.' });

    const nobody = await adminAsync('sandbox', 'call', '--to', '+14155550999', '--from', '+12125550123');
    expect(JSON.parse(nobody.stdout)).toMatchObject({ outcome: 'not_in_service', path: [] });
    const bad = await adminAsync('sandbox', 'call', '--to', '+14155550142', '--from', '+12125550123', '--digits', '2,x');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--digits');
  });
});

describe('sandbox call --script booking', () => {
  it('a caller asks the receptionist for a booking: the voice runtime holds the conversation, and the call record ends holding the booking and its outcome', async () => {
    const tenant = JSON.parse((await adminAsync('tenant', 'create', '--name', 'Front desk', '--admin-email', 'desk@acme.test')).stdout) as {
      api_key: { secret: string };
    };
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.api_key.secret}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as Record<string, any>;
    };
    const account = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'mock' });
    await api('POST', `/v1/telephony-accounts/${account.id}/verify`);
    const number = await api('POST', '/v1/phone-numbers', { phone_e164: '+14155550143', telephony_account_id: account.id });
    const profile = await api('POST', '/v1/compliance-profiles', profileBody({ call_purpose: 'informational' }));
    const agent = await api('POST', '/v1/templates/tpl_receptionist_front_desk/instantiate', {
      disclosure_config: { business_name: 'Acme Dental' },
      compliance_profile_id: profile.id,
    });
    const version = await api('POST', `/v1/agents/${agent.id}/publish`);
    expect(version.id, JSON.stringify(version)).toMatch(/^agv_|^[a-z]+_/);
    await api('PATCH', `/v1/phone-numbers/${number.id}`, { inbound_agent_id: agent.id });

    const out = await adminAsync('sandbox', 'call', '--to', '+14155550143', '--from', '+12125550177', '--script', 'booking');
    expect(out.status, out.stderr).toBe(0);
    const printed = JSON.parse(out.stdout) as {
      call_sid: string;
      outcome: string;
      path: { verb: string }[];
      relay: { sessions: { ending: string; handoff_data: string | null }[] };
    };
    expect(printed.outcome).toBe('completed');
    // The caller talks to the voice runtime over ConversationRelay; the agent ends the call and the <Connect action> hangs up.
    expect(printed.path.map((p) => p.verb)).toEqual(['Connect', 'Hangup']);
    expect(printed.relay.sessions).toEqual([expect.objectContaining({ ending: 'end', handoff_data: JSON.stringify({ reason: 'end_call' }) })]);

    const call = (await waitFor(
      async () => {
        const c = (await getCallBySid(printed.call_sid)) as CallRecordWithEvents | undefined;
        return c?.state === 'completed' && c.outcome ? c : undefined;
      },
      { timeoutMs: 10_000, message: 'the booked call to complete with its outcome' },
    )) as CallRecordWithEvents;
    expect(call).toMatchObject({
      direction: 'inbound',
      disclosure_given: true,
      opted_out: false,
      outcome: { outcome_type: 'appointment', goal_reached: true, status: 'booked', duration_minutes: 30 },
      hangup: { by: 'agent' },
    });
    const booking = call.conversation_actions!.find((a) => a.kind === 'book_meeting');
    expect(booking).toMatchObject({ arguments: { outcome: 'booked' }, action_confirmation: { kind: 'read_back', response: 'confirmed', method: 'voice' } });
    expect(call.outcome).toMatchObject({ action_id: booking!.id });
    // Greeting, the caller's request, the offer, the yes, the confirmation.
    expect(call.turn_count).toBeGreaterThanOrEqual(5);
    expect(call.usage!.audio_seconds).toBeGreaterThan(0);

    const bad = await adminAsync('sandbox', 'call', '--to', '+14155550143', '--from', '+12125550177', '--script', 'karaoke');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--script');
  });
});

describe('sandbox sms', () => {
  it('texts a sandbox number as the carrier would and prints what the platform answered: STOP suppresses the sender', async () => {
    // Not spawnSync: it blocks this process, server included, and a pooled keep-alive socket can be closed under the next request (ECONNRESET).
    const tenant = JSON.parse((await adminAsync('tenant', 'create', '--name', 'Texts Co', '--admin-email', 'texts@acme.test')).stdout) as {
      api_key: { secret: string };
    };
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.api_key.secret}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as Record<string, any>;
    };
    const account = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'mock' });
    await api('POST', `/v1/telephony-accounts/${account.id}/verify`);
    await api('POST', '/v1/phone-numbers', {
      phone_e164: '+14155550144',
      telephony_account_id: account.id,
      capabilities: ['voice', 'sms'],
      a2p_campaign_ref: 'CMP1',
    });
    const out = await adminAsync('sandbox', 'sms', '--from', '+12125550188', '--to', '+14155550144', '--body', 'STOP');
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      outcome: 'answered',
      status: 200,
      message_sid: expect.stringMatching(/^SM/),
      replies: [expect.stringMatching(/^Texts Co: You are unsubscribed/)],
    });
    // The contact's side on stderr: what they sent, and the confirmation they received.
    expect(out.stderr).toContain('+12125550188 → +14155550144: STOP');
    expect(out.stderr).toMatch(/\+14155550144 → \+12125550188: Texts Co: You are unsubscribed/);
    const suppressions = await api('GET', '/v1/suppressions?phone_e164=%2B12125550188');
    expect(suppressions.data).toEqual([expect.objectContaining({ status: 'active', source: 'sms' })]);
    const messages = await api('GET', '/v1/messages?direction=inbound');
    expect(messages.data).toEqual([expect.objectContaining({ from_e164: '+12125550188', inbound_intent: 'stop', status: 'received' })]);

    const nobody = await adminAsync('sandbox', 'sms', '--from', '+12125550188', '--to', '+14155550998', '--body', 'hi');
    expect(JSON.parse(nobody.stdout)).toMatchObject({ outcome: 'not_in_service', replies: [] });
    const bad = await adminAsync('sandbox', 'sms', '--from', '+12125550188', '--to', '+14155550144');
    expect(bad.status).toBe(2);
  });
});
