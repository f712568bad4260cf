/**
 * Starting and stopping the local stack the way a developer does: DynamoDB Local keeps
 * its data across restarts and leaves no JVM behind, a second stack cannot share a data
 * dir, secrets persist with safe permissions, and `tsx bin/local.ts` stops cleanly on Ctrl-C.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { JavaNotFoundError, startDynamoDbLocal } from '../../infra/local/dynamodb-local.js';
import { repoRoot } from '../../infra/local/paths.js';
import { loadOrCreateSecrets } from '../../infra/local/secrets.js';
import { claimDataDir, releaseDataDir, StackAlreadyRunningError, stackFilePath } from '../../infra/local/stack-file.js';
import { waitFor } from '../support/wait-for.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'vc-local-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Processes whose command line mentions `text` (e.g. a unique data dir). */
function processesMentioning(text: string): string[] {
  const out = spawnSync('pgrep', ['-af', text], { encoding: 'utf8' });
  return out.stdout.split('\n').filter((l) => l.trim() && !l.includes('pgrep'));
}

const client = (endpoint: string) => new DynamoDBClient({ endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });

describe('DynamoDB Local process', () => {
  it('keeps data in its data dir across a restart and leaves no process behind', async () => {
    const dbPath = join(tempDir(), 'dynamodb');
    const first = await startDynamoDbLocal({ dbPath });
    const c1 = client(first.endpoint);
    await c1.send(
      new CreateTableCommand({
        TableName: 'persist',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    await c1.send(new PutItemCommand({ TableName: 'persist', Item: { pk: { S: 'k' }, v: { S: 'kept' } } }));
    c1.destroy();
    await first.stop();
    expect(processesMentioning(dbPath)).toEqual([]);

    const second = await startDynamoDbLocal({ dbPath });
    try {
      const c2 = client(second.endpoint);
      const out = await c2.send(new GetItemCommand({ TableName: 'persist', Key: { pk: { S: 'k' } } }));
      c2.destroy();
      expect(out.Item?.v?.S).toBe('kept');
    } finally {
      await second.stop();
    }
    expect(processesMentioning(dbPath)).toEqual([]);
  });

  it('says clearly when Java is missing', async () => {
    const started = Date.now();
    const err = await startDynamoDbLocal({ javaBin: '/nonexistent/bin/java' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JavaNotFoundError);
    expect((err as Error).message).toMatch(/needs Java 17/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('data dir ownership', () => {
  it('refuses a data dir held by a running stack, and takes over a stale one', () => {
    const dir = tempDir();
    // Held by a live process (our parent, which outlives this test).
    writeFileSync(stackFilePath(dir), JSON.stringify({ pid: process.ppid, baseUrl: 'http://127.0.0.1:3000' }));
    expect(() => claimDataDir(dir)).toThrow(StackAlreadyRunningError);
    expect(() => claimDataDir(dir)).toThrow(/LOCAL_DIR=\.local-2 PORT=3001 npm start/);

    // Left behind by a process that is gone.
    const dead = spawnSync('true').pid!;
    writeFileSync(stackFilePath(dir), JSON.stringify({ pid: dead }));
    claimDataDir(dir);
    releaseDataDir(dir);
    expect(existsSync(stackFilePath(dir))).toBe(false);
  });

  it('creates secrets once, private to the user, and reuses them', () => {
    const dir = tempDir();
    const first = loadOrCreateSecrets(dir);
    expect(first.api_key_pepper).toMatch(/^[0-9a-f]{64}$/);
    expect(first.cursor_key).toMatch(/^[0-9a-f]{64}$/);
    expect(first.cursor_key).not.toBe(first.api_key_pepper);
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecrets(dir)).toEqual(first);
  });
});

describe('npm start (bin/local.ts)', () => {
  it('serves the API, then stops on SIGINT with exit 0 and no Java left', async () => {
    const dataDir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
      cwd: repoRoot,
      env: { ...process.env, PORT: '0', LOCAL_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const baseUrl = await waitFor(() => /listening on (http:\/\/\S+)/.exec(stdout)?.[1], {
        timeoutMs: 45_000,
        message: `the stack to start (stderr: ${stderr.slice(-500)})`,
      });
      expect(stdout).toContain('npm run admin -- tenant create --name "Acme" --admin-email ops@acme.test');
      expect(stdout).toContain(`curl -H "Authorization: Bearer $KEY" ${baseUrl}/v1/me`);
      expect(existsSync(stackFilePath(dataDir))).toBe(true);

      const res = await fetch(`${baseUrl}/no-such-route`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: 'Not Found', code: 'not_found' });
      expect(processesMentioning(dataDir).some((l) => l.includes('DynamoDBLocal'))).toBe(true);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(existsSync(stackFilePath(dataDir))).toBe(false);
    expect(processesMentioning(dataDir)).toEqual([]);
  });
});
