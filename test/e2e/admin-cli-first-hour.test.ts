/**
 * The operator CLI as a newcomer meets it: help in every spelling exits 0, an unknown
 * command or an empty option value is one line (never a stack trace), a missing stack names
 * LOCAL_DIR; and `admin demo` takes a fresh stack to a completed, analysed sandbox call with
 * its transcript and webhooks in under a minute.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack.js';
import { freshLocalStack } from '../support/stack.js';

const root = resolve(import.meta.dirname, '..', '..');
const shellEnv: NodeJS.ProcessEnv = { ...process.env };
let stack: LocalStack;
let dir: string;
let empty: string;

beforeAll(async () => {
  ({ stack, dir } = await freshLocalStack('demo'));
  empty = mkdtempSync(join(tmpdir(), 'vc-nostack-'));
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

/** The CLI as a person's shell runs it (the stack in this process must not leak its TABLE_NAME into it). */
const admin = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
    const { TABLE_NAME: _t, APP_SECRETS_JSON: _s, LOCAL_DIR: _l, ...rest } = shellEnv;
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', ...args],
      { cwd: root, encoding: 'utf8', env: { ...rest, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env }, timeout: 90_000 },
      (err, stdout, stderr) => done({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

const oneLine = (s: string) => s.trim().split('\n').length === 1 && !/\n\s+at /.test(s);

describe('admin CLI help and errors', () => {
  it('prints usage and exits 0 for --help, help, and <command> --help', async () => {
    const [dashHelp, help, short, sandboxHelp, helpSandbox] = await Promise.all([
      admin(['--help']),
      admin(['help']),
      admin(['-h']),
      admin(['sandbox', '--help']),
      admin(['help', 'sandbox']),
    ]);
    for (const out of [dashHelp, help, short]) {
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).toMatch(/^usage:/);
      for (const command of ['demo', 'tenant create', 'sandbox clock', 'dnc load', 'jobs run']) expect(out.stdout).toContain(`admin ${command}`);
    }
    for (const out of [sandboxHelp, helpSandbox]) {
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).toContain('admin sandbox call');
      expect(out.stdout).not.toContain('admin tenant create');
    }
  });

  it('says "unknown command" and lists the commands; a missing or empty value is one line; no stack names LOCAL_DIR', async () => {
    const [unknown, missing, emptyValue, noStack, badVerb] = await Promise.all([
      admin(['tenants']),
      admin(['tenant', 'create', '--name']),
      admin(['tenant', 'create', '--name', '', '--admin-email', 'a@b.test', '--local-dir', dir]),
      admin(['tenant', 'create', '--name', 'A', '--admin-email', 'a@b.test'], { LOCAL_DIR: empty }),
      admin(['tenant', 'remove']),
    ]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown command "tenants"');
    expect(unknown.stderr).toContain('tenant, user, api-key');
    expect(oneLine(unknown.stderr)).toBe(true);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--name');
    expect(oneLine(missing.stderr), missing.stderr).toBe(true);
    expect(emptyValue.status).toBe(2);
    expect(emptyValue.stderr.trim()).toBe('admin: --name needs a value, it was empty');
    expect(noStack.status).toBe(2);
    expect(noStack.stderr).toContain('LOCAL_DIR');
    expect(noStack.stderr).toContain(empty);
    expect(oneLine(noStack.stderr)).toBe(true);
    expect(badVerb.status).toBe(2);
    expect(badVerb.stderr).toContain('unknown verb "remove"');
  });
});

describe('admin demo', () => {
  it('sets up a demo tenant and places one sandbox call to completion, printing each step, in under a minute', { timeout: 120_000 }, async () => {
    const started = Date.now();
    const out = await admin(['demo'], { LOCAL_DIR: dir });
    expect(out.status, out.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    const result = JSON.parse(out.stdout) as {
      call_id: string;
      state: string;
      disposition: string;
      verdict: string;
      transcript: string[];
      webhooks: string[];
      api_key: { secret: string };
    };
    expect(result).toMatchObject({ state: 'completed', disposition: 'completed_goal', verdict: 'pass' });
    expect(result.transcript[0]).toMatch(/^agent: Hello, this is an automated assistant calling on behalf of Acme Solar/);
    expect(result.webhooks).toEqual(expect.arrayContaining(['call.queued', 'call.completed', 'call.analysis_ready']));
    for (const step of ['tenant ten_', 'sandbox telephony account', 'preflight:', 'queued', 'completed: completed_goal', 'webhooks received'])
      expect(out.stderr).toContain(step);
    // The key it printed works, and the call it reports is that tenant's.
    const call = await fetch(`${stack.baseUrl}/v1/calls/${result.call_id}`, { headers: { authorization: `Bearer ${result.api_key.secret}` } });
    expect(((await call.json()) as { state: string }).state).toBe('completed');
  });
});
