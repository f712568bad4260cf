/**
 * `npm start`: the local runtime. PORT (default 3000) and LOCAL_DIR (default .local)
 * choose the HTTP port and the data directory; LOG_LEVEL sets the handlers' log level.
 * Ctrl-C / SIGTERM stop everything (DynamoDB Local's JVM included) and exit 0.
 */
import { type LocalStack, startLocalStack } from '../infra/local/stack.js';

// Advisory noise for a local run (the SDK warns about Node < 22 on every start).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const port = parsePort(process.env.PORT ?? '3000');
const dataDir = process.env.LOCAL_DIR || '.local';
const log = (line: string) => process.stderr.write(`[local] ${line}\n`);
const quiet = (line: string) => {
  if (line.startsWith('dynamodb-local: ') && !/exited|fail|error|exception/i.test(line)) return;
  log(line);
};

let starting: Promise<LocalStack> | undefined;
let stopping: Promise<void> | undefined;
let firstSignalAt = 0;

function shutdown(signal: NodeJS.Signals): void {
  const now = Date.now();
  if (stopping) {
    // The same Ctrl-C can arrive twice (terminal + npm/tsx relaying it): only a second
    // press a moment later means "force".
    if (now - firstSignalAt > 1_000) {
      log(`${signal} again: exiting now`);
      process.exit(1); // dynamodb-local's exit hook and stdin watchdog still stop Java
    }
    return;
  }
  firstSignalAt = now;
  log(`${signal}: stopping…`);
  const hardStop = setTimeout(() => {
    log('still stopping after 20 s: exiting anyway');
    process.exit(1);
  }, 20_000);
  hardStop.unref();
  // A signal during start-up waits for the start to finish, then stops what it started.
  const stack = starting?.catch(() => undefined) ?? Promise.resolve(undefined);
  stopping = stack
    .then((s) => s?.stop())
    .then(
      () => {
        log('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log(`stop failed: ${(err as Error)?.stack ?? err}`);
        process.exit(1);
      },
    );
}

process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
process.on('SIGHUP', shutdown);
// A handler bug must not take the whole API down (on AWS it would fail one invocation).
process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${(reason as Error)?.stack ?? reason}`));

try {
  const started = Date.now();
  log(`starting (data in ${dataDir}; first start of DynamoDB Local takes a few seconds)…`);
  starting = startLocalStack({ port, dataDir, log: quiet, prettyLogs: process.env.POWERTOOLS_DEV === 'true' });
  const stack = await starting;
  if (stopping) await new Promise(() => {}); // a signal arrived during start-up: shutdown() finishes the job
  const url = stack.baseUrl;
  process.stdout.write(
    [
      '',
      `Voice Agent Control API (local) listening on ${url}   (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
      `  data: ${stack.dataDir}    table: ${stack.tableName}    DynamoDB Local: ${stack.dynamoEndpoint}`,
      '',
      'A first AI call in one command (a demo tenant, a sandbox call, its transcript and webhooks; in another terminal):',
      '  npm run --silent admin -- demo',
      'or step by step: the README\'s "Getting started" walkthrough. Operator commands: npm run admin -- --help',
      '',
      'Create a tenant and its first admin API key:',
      '  npm run admin -- tenant create --name "Acme" --admin-email ops@acme.test',
      '',
      'Then call the API with the printed secret:',
      '  KEY=<api_key.secret from the output above>',
      `  curl -H "Authorization: Bearer $KEY" ${url}/v1/me`,
      '',
      `Dashboard origin (DASHBOARD_ORIGIN; cookie routes need Origin: ${stack.env.DASHBOARD_ORIGIN ?? url}). Local mail: npm run --silent admin -- mail last --to <email>`,
      `Voice runtime (Twilio ConversationRelay): ${stack.relayUrl}?token=<Stream token>   (VOICE_FIRST_TOKEN_DEADLINE_MS, VOICE_FILLER_AFTER_MS)`,
      `Sandbox clock (local only; calling hours are real): npm run --silent admin -- sandbox clock [--advance-to DATE-TIME]`,
      `Health: curl ${url}/healthz    Stop: Ctrl-C`,
      '',
    ].join('\n'),
  );
} catch (err) {
  log(`failed to start: ${(err as Error)?.message ?? err}`);
  process.exit(1); // startLocalStack already stopped whatever it had started
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) {
    process.stderr.write(`PORT must be a port number, got "${value}"\n`);
    process.exit(2);
  }
  return n;
}
