/**
 * A crash of the local stack recovers within a minute (see docs/decisions/dispatch-and-carrier.md): the
 * real `bin/local.ts` runs as a child in its own process group on a temporary LOCAL_DIR; a
 * campaign runs and a call is queued through HTTP; the whole group (Node, DynamoDB Local's JVM)
 * is SIGKILLed mid-campaign, right after `POST /v1/calls` answered; a second child starts on the
 * same LOCAL_DIR. Within 60 s of it being up every call is terminal and scored and the campaign
 * is completed, and the sandbox carrier's own records show nothing was dialled twice.
 * Then, on that stack, the group is killed again while webhook retries wait on the queue (the
 * first attempts failed, the retries due after the restart): within 60 s of the next start the
 * endpoint gets each retry, and the ledger shows each attempt once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resetSharedCaches } from '../../infra/local/env.js';
import { isAlive, readStackFile } from '../../infra/local/stack-file.js';
import { type CallState, isTerminal } from '../../shared/policy/call-state/machine.js';
import type { TestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { callWorld, newContact, queue, sandboxCallsFrom } from './call-fixtures.js';
import { campaignOf, futureAllowedAt, importList, newCampaign, poolOf } from './campaign-fixtures.js';
import { client, newTenant } from './client.js';
import { startReceiver } from './webhook-receiver.js';

const repo = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'crash-recovery-'));
// Inside a calling window (Wednesday 10:00 in New York, a whole number of weeks ahead).
const clockOffsetMs = Date.parse(futureAllowedAt()) - Date.now();
/**
 * A failed webhook is tried again this long after its first attempt: longer than a restart
 * takes, so the retry is still waiting when the new process starts (its message died with the
 * old one), and short enough to land inside the 60 s.
 */
const WEBHOOK_RETRY_S = 35;

interface Child {
  proc: ChildProcess;
  output: string[];
}
let current: Child | undefined;

/** A free port, the same for both runs: the carrier's callbacks name the URL the call was placed from. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}
const port = await freePort();

function startChild(): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', './test/support/clock-offset-preload.ts', 'bin/local.ts'], {
    cwd: repo,
    detached: true, // its own process group: the kill reaches DynamoDB Local's JVM too
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      LOCAL_DIR: dataDir,
      TEST_PLATFORM_CLOCK_OFFSET_MS: String(clockOffsetMs),
      SANDBOX_STEP_MS: '200',
      ANALYSIS_DELAY_SECONDS: '1',
      SCHEDULER_TICK_MS: '250',
      WEBHOOK_RETRY_SCHEDULE_S: `0,${WEBHOOK_RETRY_S}`,
      WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true', // the test's receiver is on 127.0.0.1
      LOG_LEVEL: 'ERROR',
    },
  });
  const output: string[] = [];
  proc.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  proc.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  return { proc, output };
}

/** Waits for the child's stack file and health, then points this process (DynamoDB, secrets) at it. */
async function attach(child: Child): Promise<string> {
  const stack = await waitFor(
    async () => {
      if (child.proc.exitCode !== null) throw new Error(`the stack exited: ${child.output.join('')}`);
      const file = readStackFile(dataDir);
      if (!file?.baseUrl || file.pid !== child.proc.pid || !file.dynamoEndpoint) return undefined;
      return (await fetch(`${file.baseUrl}/healthz`)).ok ? file : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, message: 'the local stack is up' },
  );
  process.env.TABLE_NAME = stack.tableName!;
  process.env.DYNAMODB_ENDPOINT = stack.dynamoEndpoint!;
  process.env.AWS_REGION = stack.region ?? 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  process.env.APP_SECRETS_JSON = readFileSync(stack.secretsFile!, 'utf8');
  process.env.CREDENTIALS_KEY_FILE = join(dataDir, 'credentials.key');
  await resetSharedCaches();
  return stack.baseUrl!;
}

function killGroup(child: Child | undefined): Promise<void> {
  if (!child?.proc.pid || child.proc.exitCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.proc.once('exit', () => r()));
  try {
    process.kill(-child.proc.pid, 'SIGKILL');
  } catch {
    return Promise.resolve();
  }
  return exited;
}

afterAll(async () => {
  await killGroup(current);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The crash: SIGKILL to the whole group, then a new child on the same LOCAL_DIR; answers when it was up. */
async function killAndRestart(): Promise<number> {
  await killGroup(current);
  expect(isAlive(current!.proc.pid)).toBe(false);
  current = startChild();
  baseUrl = await attach(current);
  return Date.now();
}

/** A stack to work on: the one the previous test left running, or a new one. */
async function runningStack(): Promise<void> {
  if (current && current.proc.exitCode === null) return;
  current = startChild();
  baseUrl = await attach(current);
}

/** The child's output without its access-log lines. */
const quiet = (output: string[]) =>
  output
    .join('')
    .split('\n')
    .filter((l) => !/\] (GET|POST|PUT|PATCH|DELETE) \//.test(l))
    .join('\n')
    .slice(-6000);

let baseUrl = '';
const stack = { fetch: (path: string, init?: RequestInit) => fetch(new URL(path, baseUrl), init) } as TestStack;

/** Every call of the tenant, through the API (newest first, all pages). */
interface CallSummary {
  id: string;
  state: CallState;
}
async function callsOf(api: ReturnType<typeof client>): Promise<CallSummary[]> {
  const out: CallSummary[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: CallSummary[]; next_cursor: string | null } = (
      await api('GET', `/v1/calls?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    ).body;
    out.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

const CONTACTS = ['+12125550100', '+12125550101', '+12125550110', '+12125550120'];
const LIVE = ['dialing', 'queued', 'ringing', 'in_conversation'];

describe('kill -9 of the local stack mid-campaign, then a restart on the same LOCAL_DIR', () => {
  it('every call ends and is scored, the campaign completes, within 60 s of the restart; nothing is dialled twice', { timeout: 150_000 }, async () => {
    const testStarted = Date.now();
    await runningStack();
    const t = await newTenant('Crash');
    const api = client(stack, t.token);
    const w = await callWorld(api, t.tenantId);
    const pool = await poolOf(w, 1);
    const listId = await importList(api, CONTACTS);
    const campaign = await newCampaign(w, listId, pool.id, { max_attempts_per_contact: 1, concurrency_cap: 3 });
    expect((await api('POST', `/v1/campaigns/${campaign.id}/start`)).status).toBe(200);

    // Mid-campaign: attempts live at the carrier, contacts still waiting for a slot.
    await waitFor(async () => (await callsOf(api)).filter((c) => LIVE.includes(c.state)).length >= 2, {
      timeoutMs: 40_000,
      intervalMs: 100,
      message: 'campaign calls live',
    });
    const contact = await newContact(api, '+13475550100');
    const queued = await queue(api, { agent_id: w.agentId, contact_id: contact.id });
    expect(queued.status).toBeLessThan(300);
    const restartedAt = await killAndRestart();
    const before = await callsOf(api);
    if (process.env.CRASH_TEST_TIMING) process.stderr.write(`[crash-recovery] restarted ${restartedAt - testStarted} ms into the test\n`);
    // The kill left work in flight (else this test proves nothing).
    expect(before.filter((c) => !isTerminal(c.state)).length).toBeGreaterThan(0);

    let seen = '';
    const done = await waitFor(
      async () => {
        const calls = await callsOf(api);
        const c = await campaignOf(api, campaign.id);
        const details = await Promise.all(calls.map(async (x) => (await api('GET', `/v1/calls/${x.id}`)).body));
        seen = `campaign ${c.status}; calls ${details.map((d) => `${d.to_e164 ?? d.id}:${d.state}${d.analysis ? '+scored' : ''}`).join(', ')}`;
        if (c.status !== 'completed' || !calls.every((x) => isTerminal(x.state))) return undefined;
        return details.every((d) => d.analysis) ? details : undefined;
      },
      { timeoutMs: 60_000 - (Date.now() - restartedAt), intervalMs: 500, message: 'every call terminal and scored, the campaign completed' },
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}\nlast seen: ${seen}\nbefore the restart: ${before.map((x) => x.state).join(', ')}\nstack output:\n${quiet(current!.output)}`,
      );
    });
    expect(Date.now() - restartedAt).toBeLessThan(60_000);
    if (process.env.CRASH_TEST_TIMING) process.stderr.write(`[crash-recovery] all done ${Date.now() - restartedAt} ms after the restart\n`);
    expect(done.find((d) => d.id === queued.body.call_id)).toBeDefined();

    // The carrier's own records: one dial per number (one attempt each), each linked to one call.
    const dialled = (await Promise.all(pool.numbers.map((n) => sandboxCallsFrom(n)))).flat();
    const perNumber = new Map<string, number>();
    for (const c of dialled) perNumber.set(c.to as string, (perNumber.get(c.to as string) ?? 0) + 1);
    for (const [to, n] of perNumber) expect(n, `dials to ${to}`).toBe(1);
    for (const c of dialled) expect(c.status, `the carrier's call to ${c.to as string}`).toMatch(/^(completed|busy|no-answer|failed|canceled)$/);
  });
});

/** The events a blocked call commits together, in one transaction with the call (nothing is dialled). */
const HOOKED = ['call.queued', 'call.blocked', 'call.completed'];
interface LedgerEvent {
  id: string;
  type: string;
  delivery_status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts?: { attempt: number; trigger: string; status_code: number | null }[];
}

describe('kill -9 of the local stack while webhook retries wait, then a restart on the same LOCAL_DIR', () => {
  it('each retry due after the restart reaches the endpoint within 60 s of it; every attempt is POSTed and recorded once', { timeout: 120_000 }, async () => {
    await runningStack();
    const receiver = await startReceiver();
    try {
      // Every event's first attempt fails, every later one succeeds.
      receiver.answer((req) => ({ status: receiver.forEvent((JSON.parse(req.body) as { id: string }).id).length === 1 ? 500 : 200 }));
      const t = await newTenant('CrashHooks');
      const api = client(stack, t.token);
      const w = await callWorld(api, t.tenantId);
      expect((await api('PUT', '/v1/webhook-endpoint', { body: { url: receiver.url, enabled_events: HOOKED } })).status).toBe(201);
      const contact = await newContact(api);
      expect((await api('POST', '/v1/suppressions', { body: { phone_e164: contact.phone_e164, reason: 'opt_out' } })).status).toBe(201);
      const blocked = await queue(api, { agent_id: w.agentId, contact_id: contact.id });
      expect(blocked.body).toMatchObject({ state: 'disposed' });

      // Each event's first attempt failed (the receiver answered it) and its retry is on the queue.
      const pending = await waitFor(
        async () => {
          const page: LedgerEvent[] = (await api('GET', '/v1/webhook-events?limit=50')).body.data.filter((e: LedgerEvent) => HOOKED.includes(e.type));
          return page.length === HOOKED.length && page.every((e) => e.delivery_status === 'pending' && e.attempt_count === 1) ? page : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100, message: 'every first attempt failed and recorded' },
      );
      expect(pending.map((e) => receiver.forEvent(e.id).length)).toEqual(HOOKED.map(() => 1));

      const restartedAt = await killAndRestart();
      // The retries were still waiting when the new process started (else this test proves nothing).
      const platformRestart = restartedAt + clockOffsetMs;
      for (const e of pending) expect(Date.parse(e.next_attempt_at!), `${e.type}'s retry is due after the restart`).toBeGreaterThan(platformRestart);
      if (process.env.CRASH_TEST_TIMING)
        process.stderr.write(
          `[crash-recovery] webhook retries due ${Math.min(...pending.map((e) => Date.parse(e.next_attempt_at!))) - platformRestart} ms after the restart\n`,
        );

      let seen = '';
      const delivered = await waitFor(
        async () => {
          const details: LedgerEvent[] = await Promise.all(pending.map(async (e) => (await api('GET', `/v1/webhook-events/${e.id}`)).body));
          seen = details.map((d) => `${d.type}:${d.delivery_status}/${d.attempt_count}`).join(', ');
          return details.every((d) => d.delivery_status === 'delivered') ? details : undefined;
        },
        { timeoutMs: 60_000 - (Date.now() - restartedAt), intervalMs: 250, message: 'every retry delivered' },
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nlast seen: ${seen}\nstack output:\n${quiet(current!.output)}`);
      });
      expect(Date.now() - restartedAt).toBeLessThan(60_000);
      if (process.env.CRASH_TEST_TIMING) process.stderr.write(`[crash-recovery] retries delivered ${Date.now() - restartedAt} ms after the restart\n`);
      for (const d of delivered) {
        // The ledger: the failed first attempt and the retry, each once.
        expect(
          d.attempts!.map((a) => [a.attempt, a.trigger, a.status_code]),
          d.type,
        ).toEqual([
          [1, 'automatic', 500],
          [2, 'automatic', 200],
        ]);
        // The receiver: two POSTs, so one success (only the first was answered 500).
        expect(receiver.forEvent(d.id), d.type).toHaveLength(2);
      }
    } finally {
      await receiver.close();
    }
  });
});
