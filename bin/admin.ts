/**
 * Operator CLI: bootstraps tenants, users and API keys.
 *
 *   npm run admin -- tenant create --name "Acme" --admin-email ops@acme.test
 *   npm run admin -- user create --tenant ten_... --email a@acme.test [--role manager] [--name "A"]
 *   npm run admin -- api-key create --tenant ten_... --name "CI" [--role member] (member is the default, as POST /v1/api-keys)
 *   npm run admin -- rep create --tenant ten_... --name "Dana" [--transfer-number +14155550123] [--disabled]
 *   npm run admin -- rep disable|enable --tenant ten_... --rep rep_...
 *   npm run admin -- seed          (platform data + templates; idempotent; a deploy seeds by itself, this is the manual fallback)
 *   npm run --silent admin -- sandbox credentials [--status suspended]
 *   npm run --silent admin -- sandbox call --to +14155550100 --from +12125550123 [--digits 1,2] [--no-answer] [--script enquiry|booking]
 *   npm run --silent admin -- sandbox sms --from +12125550123 --to +14155550100 --body "STOP"
 *   npm run admin -- dnc load --area-code 415 --as-of 2026-11-01 --file numbers.txt
 *   npm run admin -- dnc status   (loaded area codes with as_of and counts)
 *   echo 'a long password' | npm run admin -- user set-password --tenant ten_... --user usr_...
 *   npm run admin -- user verify-email --tenant ten_... --user usr_...   (passwordless: signs in by emailed link)
 *   npm run --silent admin -- mail last --to ops@acme.test   (the local mail sink's newest mail to that address)
 *   npm run admin -- jobs run deletions --at 2026-12-10T00:00:00Z   (a scheduled job at a chosen instant; local only)
 *   npm run admin -- plan list | plan assign --tenant ten_... --plan plan_growth
 *   npm run admin -- budget set --tenant ten_... --daily-minor 5000 | none
 *   npm run admin -- subscription cancel --tenant ten_...
 *   npm run admin -- jobs run invoices --at 2026-12-01T01:05:00Z   (local runtime: a scheduled job as of an instant)
 *   npm run admin -- sandbox invoice-event --tenant ten_... --invoice inv_... --type invoice.marked_uncollectible
 *
 * Prints exactly one JSON object on stdout. By default it finds the running local stack
 * (<LOCAL_DIR or .local>/stack.json). Against AWS pass --table and --secret-id (or
 * TABLE_NAME and APP_SECRET_ARN); credentials come from the standard AWS chain.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isAlive, readStackFile } from '../infra/local/stack-file.js';
import { jobs as jobsRegistry } from '../shared/admin/jobs.js';
import { adminCommands, unknownCommandText, usageText } from '../shared/admin/usage.js';

const repoRoot = resolve(import.meta.dirname, '..');

const COMMANDS = adminCommands(Object.keys(jobsRegistry));
const USAGE = usageText(COMMANDS);

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const OPTIONS = {
  name: { type: 'string' },
  'admin-email': { type: 'string' },
  'admin-name': { type: 'string' },
  tenant: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  table: { type: 'string' },
  'secret-id': { type: 'string' },
  region: { type: 'string' },
  'local-dir': { type: 'string' },
  'transfer-number': { type: 'string' },
  disabled: { type: 'boolean' },
  rep: { type: 'string' },
  status: { type: 'string' },
  'kms-key-id': { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  digits: { type: 'string' },
  'no-answer': { type: 'boolean' },
  script: { type: 'string' },
  body: { type: 'string' },
  'area-code': { type: 'string' },
  'as-of': { type: 'string' },
  file: { type: 'string' },
  user: { type: 'string' },
  plan: { type: 'string' },
  'daily-minor': { type: 'string' },
  at: { type: 'string' },
  invoice: { type: 'string' },
  type: { type: 'string' },
  'advance-to': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

// A missing option value or an unknown option is one line, never a stack trace.
const { values, positionals } = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: OPTIONS });
  } catch (err) {
    return fail(`admin: ${(err as Error).message.split('\n')[0]} (admin --help for the usage)`);
  }
})();

function configureTarget(): void {
  const table = values.table ?? process.env.TABLE_NAME;
  if (table) {
    process.env.TABLE_NAME = table;
    const secret = values['secret-id'] ?? process.env.APP_SECRET_ARN;
    if (!secret && !process.env.APP_SECRETS_JSON) fail('--secret-id (or APP_SECRET_ARN) is required with --table');
    if (secret) process.env.APP_SECRET_ARN = secret;
    if (values.region) process.env.AWS_REGION = values.region;
    const kmsKey = values['kms-key-id'] ?? process.env.CREDENTIALS_KMS_KEY_ID;
    if (kmsKey) process.env.CREDENTIALS_KMS_KEY_ID = kmsKey;
    return;
  }
  // Same resolution as the local stack: relative to the repository root.
  const dir = resolve(repoRoot, values['local-dir'] ?? process.env.LOCAL_DIR ?? '.local');
  const stack = readStackFile(dir);
  if (!stack?.tableName || !stack.dynamoEndpoint || !isAlive(stack.pid)) {
    fail(
      `no running local stack found in ${dir} (LOCAL_DIR=${process.env.LOCAL_DIR ?? ''}; --local-dir DIR overrides it): start it with \`npm start\` (the same LOCAL_DIR), or pass --table and --secret-id for AWS`,
    );
  }
  process.env.TABLE_NAME = stack.tableName;
  process.env.DYNAMODB_ENDPOINT = stack.dynamoEndpoint;
  process.env.AWS_REGION = stack.region ?? 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  process.env.APP_SECRETS_JSON = readFileSync(stack.secretsFile ?? resolve(dir, 'secrets.json'), 'utf8');
  process.env.CREDENTIALS_KEY_FILE = resolve(dir, 'credentials.key');
  // Jobs run here reach the local carrier (the sandbox) and the emulator's S3 as the stack does.
  if (stack.baseUrl) {
    process.env.PUBLIC_BASE_URL ??= stack.baseUrl;
    process.env.TWILIO_API_BASE_URL ??= `${stack.baseUrl}/sandbox/twilio`;
  }
  if (stack.s3Endpoint) process.env.S3_ENDPOINT ??= stack.s3Endpoint;
  if (stack.importBucket) process.env.IMPORT_BUCKET ??= stack.importBucket;
  process.env.MAIL_TRANSPORT ??= 'sink';
  localTarget = true;
}

let localTarget = false;

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password (then Enter, Ctrl-D): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** `user set-password` | `user verify-email` (dashboard sign-in, see docs/decisions/auth-and-sessions.md). */
async function userSignIn(verb: string): Promise<unknown> {
  const ops = await import('../shared/admin/users.js');
  if (verb === 'verify-email') return ops.verifyEmailAction({ tenantId: need('tenant'), userId: need('user') });
  const tenantId = need('tenant');
  const userId = need('user');
  const password = await readStdin();
  if (!password) fail('the password is read from stdin: echo "…" | npm run admin -- user set-password …');
  return ops.setPasswordAction({ tenantId, userId, password });
}

/** `mail last --to EMAIL`: the local mail sink's newest mail. */
async function mail(): Promise<unknown> {
  const { lastMail } = await import('../shared/mail/mailer.js');
  const found = await lastMail(need('to'));
  if (!found) fail(`no mail to ${values.to} in the local mail sink`);
  return found;
}

/** `jobs run NAME --at DATE_TIME`: a scheduled job at a chosen instant (the local runtime only). */
async function runJob(name: string | undefined): Promise<unknown> {
  if (!localTarget) fail('jobs run works against the local runtime only (on AWS the schedules run the jobs)');
  const job = name ? jobsRegistry[name] : undefined;
  if (!job) fail(`jobs run NAME: one of ${Object.keys(jobsRegistry).join(', ')}`);
  const at = need('at');
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(at) || Number.isNaN(Date.parse(at)))
    fail('--at is an ISO 8601 date-time with an offset, e.g. 2026-12-01T00:05:00Z');
  return { job: name, at: new Date(at).toISOString(), result: await job(new Date(at)) };
}

const ROLES = ['admin', 'manager', 'member'] as const;
function role(value: string | undefined, fallback: (typeof ROLES)[number]) {
  if (value === undefined) return fallback;
  if (!(ROLES as readonly string[]).includes(value)) fail(`--role must be one of ${ROLES.join(', ')}`);
  return value as (typeof ROLES)[number];
}
const need = (name: keyof typeof values): string => {
  const v = values[name];
  if (typeof v !== 'string') fail(`admin: --${name} is required (admin ${positionals[0]} --help for the usage)`);
  if (v.trim() === '') fail(`admin: --${name} needs a value, it was empty`);
  return v;
};

/** `sandbox credentials [--status active|suspended|closed]`: a sandbox carrier account that byo twilio accepts. */
async function sandbox(verb: string | undefined): Promise<unknown> {
  if (verb === 'call') return sandboxCall();
  if (verb === 'sms') return sandboxSms();
  if (verb === 'clock') return sandboxClock();
  if (verb !== 'credentials') fail(USAGE);
  const { SANDBOX_ACCOUNT_STATUSES, newSandboxCredentials, putSandboxAccount } = await import('../shared/sandbox/accounts.js');
  const status = values.status ?? 'active';
  if (!(SANDBOX_ACCOUNT_STATUSES as readonly string[]).includes(status)) fail(`--status must be one of ${SANDBOX_ACCOUNT_STATUSES.join(', ')}`);
  const creds = newSandboxCredentials();
  await putSandboxAccount(creds, { status: status as (typeof SANDBOX_ACCOUNT_STATUSES)[number] });
  return creds;
}

/**
 * `sandbox call`: the sandbox carrier places an inbound call to a sandbox number, as Twilio
 * would (signed webhook, TwiML followed, key presses from --digits, reps answer unless
 * --no-answer) and prints the path it took.
 */
async function sandboxCall(): Promise<unknown> {
  const e164 = /^\+[1-9]\d{7,14}$/;
  const to = need('to');
  const from = need('from');
  if (!e164.test(to) || !e164.test(from)) fail('--to and --from must be E.164 (+, a first digit 1-9, then 7 to 14 digits)');
  const digits = values.digits ? values.digits.split(',').map((d) => d.trim()) : [];
  if (digits.some((d) => !/^[0-9*#]$/.test(d))) fail('--digits is a comma-separated list of single keys 0-9, * or #');
  const { INBOUND_SCRIPTS, DEFAULT_INBOUND_SCRIPT } = await import('../shared/sandbox/booking-script.js');
  const script = values.script ?? DEFAULT_INBOUND_SCRIPT;
  if (!(INBOUND_SCRIPTS as readonly string[]).includes(script)) fail(`--script must be one of ${INBOUND_SCRIPTS.join(', ')}`);
  const { playInboundCall } = await import('../shared/sandbox/inbound-call.js');
  const { formatTranscriptLine } = await import('../shared/sandbox/relay-caller.js');
  // The transcript goes to stderr as it happens; stdout keeps the one JSON result.
  const onLine = (line: Parameters<typeof formatTranscriptLine>[0]) => process.stderr.write(`${formatTranscriptLine(line)}\n`);
  return playInboundCall({ to, from, digits, repsAnswer: values['no-answer'] !== true, script: script as (typeof INBOUND_SCRIPTS)[number], onLine });
}

/** `sandbox clock [--advance-to DATE-TIME]`: the local stack's sandbox clock (infra/local/sandbox-clock.ts). */
async function sandboxClock(): Promise<unknown> {
  if (!localTarget || !process.env.PUBLIC_BASE_URL) fail('sandbox clock works against the local runtime only (the deployed API has no sandbox clock)');
  const to = values['advance-to'];
  if (to !== undefined && (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(to) || Number.isNaN(Date.parse(to))))
    fail('--advance-to is an ISO 8601 date-time with an offset, e.g. 2026-12-01T14:00:00Z');
  const url = `${process.env.PUBLIC_BASE_URL}/local/sandbox-clock`;
  const res = await fetch(
    url,
    to === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advance_to: to }) },
  );
  if (!res.ok) fail(`sandbox clock: the local stack answered ${res.status}`);
  return res.json();
}

/** `sandbox sms`: the sandbox carrier delivers a text to a sandbox number, as Twilio would (signed messaging webhook), and prints the answer. */
async function sandboxSms(): Promise<unknown> {
  const to = need('to');
  const from = need('from');
  if (!/^\+[1-9]\d{7,14}$/.test(to) || !/^\+[1-9]\d{7,14}$/.test(from)) fail('--to and --from must be E.164 (+, a first digit 1-9, then 7 to 14 digits)');
  const body = need('body');
  if (body.length > 1600) fail('--body is at most 1600 characters');
  const { playInboundMessage, smsTrace } = await import('../shared/sandbox/inbound-message.js');
  const result = await playInboundMessage({ to, from, body });
  // What the contact sent and received goes to stderr (like `sandbox call`'s transcript); stdout keeps the one JSON result.
  for (const line of smsTrace({ to, from, body }, result)) process.stderr.write(`${line}\n`);
  return result;
}

/** `dnc load --area-code NPA --as-of YYYY-MM-DD --file FILE` | `dnc status`. */
async function dnc(verb: string | undefined): Promise<unknown> {
  const { dncStatusAction, loadDncAction } = await import('../shared/admin/dnc.js');
  if (verb === 'status') return dncStatusAction();
  return loadDncAction({ areaCode: need('area-code'), asOf: need('as-of'), file: resolve(process.env.INIT_CWD ?? process.cwd(), need('file')) });
}

/** `plan list` | `plan assign`, `budget set`, `subscription cancel`, `sandbox invoice-event` (see docs/decisions/billing.md). */
async function billing(noun: string, verb: string | undefined): Promise<unknown> {
  const ops = await import('../shared/admin/billing.js');
  if (noun === 'plan') return verb === 'list' ? ops.planListAction() : ops.planAssignAction({ tenantId: need('tenant'), planId: need('plan') });
  if (noun === 'budget') {
    const raw = need('daily-minor');
    if (raw !== 'none' && !/^\d{1,12}$/.test(raw)) fail('--daily-minor is a whole number of minor units, or none');
    return ops.budgetSetAction({ tenantId: need('tenant'), dailyMinor: raw === 'none' ? null : Number(raw) });
  }
  if (noun === 'subscription') return ops.subscriptionCancelAction({ tenantId: need('tenant') });
  return ops.sandboxInvoiceEventAction({ tenantId: need('tenant'), invoiceId: need('invoice'), type: need('type') });
}

async function main(): Promise<void> {
  const [noun, verb] = positionals;
  if (noun === 'help' || (!noun && values.help)) {
    const about = positionals[1];
    if (about && !COMMANDS[about]) fail(unknownCommandText(COMMANDS, about));
    return void process.stdout.write(`${usageText(COMMANDS, about)}\n`);
  }
  if (!noun) fail(USAGE);
  const command = COMMANDS[noun];
  if (!command) fail(unknownCommandText(COMMANDS, noun));
  if (values.help) return void process.stdout.write(`${usageText(COMMANDS, noun)}\n`);
  if (!command.verbs.includes(verb ?? '')) fail(`admin ${noun}: ${verb ? `unknown verb "${verb}"` : 'a verb is needed'}\n${usageText(COMMANDS, noun)}`);
  configureTarget();
  if (noun === 'demo') return runDemo();
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const ops = await import('../shared/admin/bootstrap.js');
  let result: unknown;
  switch (noun) {
    case 'tenant': {
      const email = need('admin-email');
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) fail('--admin-email is not an email address');
      result = await ops.createTenant({ name: need('name'), adminEmail: email, adminName: values['admin-name'] });
      break;
    }
    case 'user':
      if (verb !== 'create') {
        result = await userSignIn(verb!);
        break;
      }
      result = await ops.createUser({ tenantId: need('tenant'), email: need('email'), role: role(values.role, 'member'), name: values.name });
      break;
    case 'api-key':
      result = await ops.createApiKey({ tenantId: need('tenant'), name: need('name'), role: role(values.role, 'member') });
      break;
    case 'rep': {
      if (verb === 'create') {
        const number = values['transfer-number'];
        if (number !== undefined && !/^\+[1-9]\d{6,14}$/.test(number)) fail('--transfer-number must be E.164 (+ and 7 to 15 digits)');
        result = await ops.createRepAction({
          tenantId: need('tenant'),
          name: need('name'),
          transferNumber: number ?? null,
          disabled: values.disabled === true,
        });
      } else {
        result = await ops.setRepStatusAction({ tenantId: need('tenant'), repId: need('rep'), status: verb === 'disable' ? 'disabled' : 'active' });
      }
      break;
    }
    case 'seed':
      result = await (await import('../shared/seed/platform.js')).seedPlatformData();
      break;
    case 'sandbox':
      result = verb === 'invoice-event' ? await billing(noun, verb) : await sandbox(verb);
      break;
    case 'plan':
    case 'budget':
    case 'subscription':
      result = await billing(noun, verb);
      break;
    case 'dnc':
      result = await dnc(verb);
      break;
    case 'mail':
      result = await mail();
      break;
    case 'jobs':
      result = await runJob(positionals[2]);
      break;
    default:
      fail(USAGE);
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  fail(`admin: ${message}`);
});

/** `demo`: a demo tenant end to end and one sandbox call (shared/admin/demo.ts); steps on stderr, the result on stdout. */
async function runDemo(): Promise<void> {
  if (!localTarget || !process.env.PUBLIC_BASE_URL) fail('demo works against the local runtime only: start it with `npm start`');
  const { runDemo: demo } = await import('../shared/admin/demo.js');
  const started = Date.now();
  const say = (line: string) => process.stderr.write(`[demo ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
  const result = await demo({ baseUrl: process.env.PUBLIC_BASE_URL, say });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
