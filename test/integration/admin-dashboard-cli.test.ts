/**
 * Issue 16's operator CLI verbs against a running local stack: `user set-password` (stdin),
 * `user verify-email`, `mail last --to`, `jobs run deletions --at`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.js';
import { emulatorEndpoints, uniqueSuffix } from '../support/environment.js';

const root = resolve(import.meta.dirname, '..', '..');
let stack: LocalStack;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vc-admin16-'));
  const { dynamoEndpoint, sqsEndpoint } = emulatorEndpoints();
  stack = await startLocalStack({
    port: 0,
    dataDir: dir,
    dynamoEndpoint,
    sqsEndpoint,
    tableName: `admin16-${uniqueSuffix()}`,
    queueNamePrefix: `admin16-${uniqueSuffix()}-`,
    workers: false,
  });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI without blocking this process (the server it calls runs here too); `input` goes to its stdin. */
const childEnv = () => {
  // The stack set TABLE_NAME in this process; the CLI must find the stack through --local-dir, as a person's shell would.
  const { TABLE_NAME: _t, APP_SECRETS_JSON: _s, ...rest } = process.env;
  return { ...rest, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
};
const admin = (args: string[], input = '') =>
  new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', ...args, '--local-dir', dir],
      { cwd: root, encoding: 'utf8', env: childEnv() },
      (err, stdout, stderr) => done({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(input);
  });

const post = (path: string, body: unknown) =>
  fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: stack.baseUrl }, body: JSON.stringify(body) });

describe('dashboard operator CLI', () => {
  it('sets a password from stdin (never an argument), then the user signs in; a short one is refused', async () => {
    const tenant = JSON.parse((await admin(['tenant', 'create', '--name', 'Acme', '--admin-email', 'owner@acme.test'])).stdout) as {
      tenant_id: string;
      user_id: string;
    };
    const short = await admin(['user', 'set-password', '--tenant', tenant.tenant_id, '--user', tenant.user_id], 'short\n');
    expect(short.status).not.toBe(0);
    expect(short.stderr).toContain('at least 12');
    const set = await admin(['user', 'set-password', '--tenant', tenant.tenant_id, '--user', tenant.user_id], 'a long enough password\n');
    expect(set.status, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ tenant_id: tenant.tenant_id, user_id: tenant.user_id, email: 'owner@acme.test', password_set: true });
    expect(set.stdout).not.toContain('a long enough password');
    expect((await post('/v1/sessions', { email: 'owner@acme.test', password: 'a long enough password' })).status).toBe(204);
  });

  it('verifies an email, and `mail last` shows the sign-in link the sink caught', async () => {
    const tenant = JSON.parse((await admin(['tenant', 'create', '--name', 'Beta', '--admin-email', 'nopass@beta.test'])).stdout) as {
      tenant_id: string;
      user_id: string;
    };
    expect((await admin(['user', 'verify-email', '--tenant', tenant.tenant_id, '--user', tenant.user_id])).status).toBe(0);
    expect((await post('/v1/sessions/email-link', { email: 'nopass@beta.test' })).status).toBe(202);
    const mail = await admin(['mail', 'last', '--to', 'nopass@beta.test']);
    expect(mail.status, mail.stderr).toBe(0);
    const found = JSON.parse(mail.stdout) as { to: string; subject: string; text: string };
    expect(found).toMatchObject({ to: 'nopass@beta.test', subject: 'Your sign-in link' });
    expect(found.text).toContain(`${stack.baseUrl}/sign-in/email-link#token=val_`);
    expect((await admin(['mail', 'last', '--to', 'nobody@beta.test'])).status).not.toBe(0);
  });

  it('runs the deletions job at a chosen instant, and refuses an unknown job', async () => {
    const run = await admin(['jobs', 'run', 'deletions', '--at', '2030-01-01T00:00:00Z']);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      job: 'deletions',
      at: '2030-01-01T00:00:00.000Z',
      result: { at: '2030-01-01T00:00:00.000Z', due: 0, results: [] },
    });
    // A tenant whose deletion is due at that instant is deleted by the run.
    const tenant = JSON.parse((await admin(['tenant', 'create', '--name', 'Gamma', '--admin-email', 'owner@gamma.test'])).stdout) as {
      tenant_id: string;
      user_id: string;
    };
    expect((await admin(['user', 'set-password', '--tenant', tenant.tenant_id, '--user', tenant.user_id], 'gamma password 12345\n')).status).toBe(0);
    const signIn = await post('/v1/sessions', { email: 'owner@gamma.test', password: 'gamma password 12345' });
    const cookie = /^(__Host-vac_session=[^;]+);/.exec(signIn.headers.get('set-cookie') ?? '')![1]!;
    const requested = await fetch(`${stack.baseUrl}/v1/account-deletion/requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: stack.baseUrl, cookie },
      body: JSON.stringify({ password: 'gamma password 12345', confirmation_phrase: 'delete Gamma' }),
    });
    expect(requested.status).toBe(200);
    const due = new Date(Date.parse(((await requested.json()) as { request: { scheduled_for: string } }).request.scheduled_for) + 60_000).toISOString();
    const deleting = await admin(['jobs', 'run', 'deletions', '--at', due]);
    expect(deleting.status, deleting.stderr).toBe(0);
    expect(JSON.parse(deleting.stdout).result.results).toEqual([expect.objectContaining({ tenant_id: tenant.tenant_id, outcome: 'completed' })]);
    expect((await post('/v1/sessions', { email: 'owner@gamma.test', password: 'gamma password 12345' })).status).toBe(401);
    const unknown = await admin(['jobs', 'run', 'nothing', '--at', '2030-01-01T00:00:00Z']);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('deletions');
  });
});
