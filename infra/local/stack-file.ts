/**
 * <dataDir>/stack.json: tells the operator CLI where the running local stack is, and
 * keeps a second stack from opening the same DynamoDB Local data directory (two JVMs
 * on one SQLite file would corrupt it).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StackFile {
  pid: number;
  baseUrl: string;
  tableName: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  s3Endpoint: string;
  region: string;
  importBucket?: string;
  queueUrls?: Record<string, string>;
  /** Path of the secrets file (the secrets themselves are never written here). */
  secretsFile?: string;
  startedAt?: string;
}

export const stackFilePath = (dataDir: string): string => join(dataDir, 'stack.json');

export class StackAlreadyRunningError extends Error {
  constructor(dataDir: string, existing: Partial<StackFile>) {
    super(
      `A local stack (pid ${existing.pid}${existing.baseUrl ? `, ${existing.baseUrl}` : ''}) is already using ${dataDir}. ` +
        'Stop it first, or run a second one with its own data dir and port, e.g.\n' +
        '  LOCAL_DIR=.local-2 PORT=3001 npm start',
    );
    this.name = 'StackAlreadyRunningError';
  }
}

export function readStackFile(dataDir: string): Partial<StackFile> | undefined {
  try {
    return JSON.parse(readFileSync(stackFilePath(dataDir), 'utf8')) as Partial<StackFile>;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number | undefined): boolean {
  if (!pid || !Number.isInteger(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims the data dir for this process (atomically: exclusive create), replacing a stale
 * file left by a process that no longer exists. Throws StackAlreadyRunningError otherwise.
 */
export function claimDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  const file = stackFilePath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, JSON.stringify({ pid: process.pid, starting: true }) + '\n', { flag: 'wx', mode: 0o600 });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const existing = readStackFile(dataDir);
    if (existing && isAlive(existing.pid)) throw new StackAlreadyRunningError(dataDir, existing);
    rmSync(file, { force: true }); // stale: its process is gone
  }
  throw new Error(`could not claim ${file}`);
}

export function writeStackFile(dataDir: string, content: StackFile): void {
  writeFileSync(stackFilePath(dataDir), JSON.stringify(content, null, 2) + '\n', { mode: 0o600 });
}

/** Removes the file only if it is still ours. */
export function releaseDataDir(dataDir: string): void {
  const existing = readStackFile(dataDir);
  if (existing?.pid === process.pid) rmSync(stackFilePath(dataDir), { force: true });
}
