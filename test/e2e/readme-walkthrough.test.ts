/**
 * The README's getting-started walkthrough, executed: every ```bash walkthrough block runs
 * in order with bash against a fresh local stack (as `npm start` runs it, with a data dir so
 * the operator CLI finds it), the shell's variables and functions carried from block to
 * block, and every shown output compared with what the block printed. A README edit that
 * breaks the path fails here.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack.js';
import { lastJsonLine, mismatches, walkthroughSteps } from '../support/readme-walkthrough.js';
import { freshLocalStack } from '../support/stack.js';

const root = resolve(import.meta.dirname, '..', '..');
// A person's shell: what this process had before the stack set its own environment.
const shellEnv: NodeJS.ProcessEnv = { ...process.env };
let stack: LocalStack;
let dir: string;

const freePort = () =>
  new Promise<number>((done, failed) => {
    const s = createServer();
    s.once('error', failed);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

beforeAll(async () => {
  ({ stack, dir } = await freshLocalStack('walk'));
});
afterAll(async () => {
  // A block that failed may have left the README's webhook receiver running.
  const state = join(dir, 'shell-state');
  const pid = existsSync(state) ? /HOOK_PID="?(\d+)/.exec(readFileSync(state, 'utf8'))?.[1] : undefined;
  if (pid) {
    try {
      process.kill(Number(pid));
    } catch {
      // already gone
    }
  }
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One block in bash: the state of the blocks before it sourced, its own saved after it. */
function runBlock(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const state = join(dir, 'shell-state');
  const wrapped = ['set -a', `[ -f '${state}' ] && source '${state}'`, 'set -euo pipefail', script, `{ export -p; declare -f; } > '${state}'`].join('\n');
  return new Promise((done) => {
    execFile('bash', ['-c', wrapped], { cwd: root, env, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('README walkthrough', () => {
  const steps = walkthroughSteps(readFileSync(join(root, 'README.md'), 'utf8'));

  it('has the getting-started path, with outputs to compare', () => {
    expect(steps.length).toBeGreaterThanOrEqual(10);
    expect(steps.filter((s) => s.expected !== undefined).length).toBeGreaterThanOrEqual(8);
    const all = steps.map((s) => s.script).join('\n');
    for (const path of ['/v1/calls/preflight', '/v1/calls/$CALL/transcript', '/v1/webhook-events', 'sandbox clock']) expect(all).toContain(path);
  });

  it('runs block by block against a fresh stack, every shown output matching', { timeout: 240_000 }, async () => {
    const { TABLE_NAME: _t, APP_SECRETS_JSON: _s, ...rest } = shellEnv;
    const env = { ...rest, API: stack.baseUrl, LOCAL_DIR: dir, HOOK_PORT: String(await freePort()), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    for (const step of steps) {
      const out = await runBlock(step.script, env);
      expect(out.code, `README block at line ${step.line} failed:\n${out.stderr}\n${out.stdout}`).toBe(0);
      if (step.expected === undefined) continue;
      const actual = lastJsonLine(out.stdout);
      expect(mismatches(step.expected, actual), `README output after line ${step.line}; the block printed:\n${out.stdout}`).toEqual([]);
    }
  });
});
