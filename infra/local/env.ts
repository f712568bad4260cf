/**
 * The environment the handlers read (shared/config.ts, shared/secrets.ts, Powertools),
 * pointed at local emulators. Set it before importing any handler or shared module.
 */
import { type QueueName, queues as queueDefinitions } from '../../shared/queues/definitions.js';
import type { ProvisionedQueues } from './provision.js';
import type { LocalSecrets } from './secrets.js';

export interface LocalEnvParams {
  tableName: string;
  region: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  queues: ProvisionedQueues;
  importBucket: string;
  secrets: LocalSecrets;
  /** The secret box's key: a file (npm start) or inline base64 (in-memory stacks, tests). */
  credentialsKey: { file: string } | { inline: string };
  prettyLogs?: boolean;
}

export function localEnv(p: LocalEnvParams): Record<string, string> {
  const env: Record<string, string> = {
    TABLE_NAME: p.tableName,
    AWS_REGION: p.region,
    AWS_DEFAULT_REGION: p.region,
    // Emulators accept anything; fixed values also stop the SDK from probing for credentials.
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    DYNAMODB_ENDPOINT: p.dynamoEndpoint,
    SQS_ENDPOINT: p.sqsEndpoint,
    S3_ENDPOINT: p.sqsEndpoint,
    IMPORT_BUCKET: p.importBucket,
    APP_SECRETS_JSON: JSON.stringify(p.secrets),
    ...('file' in p.credentialsKey ? { CREDENTIALS_KEY_FILE: p.credentialsKey.file } : { CREDENTIALS_KEY: p.credentialsKey.inline }),
    // Developers receive webhooks on their own machine: http to loopback is allowed here only.
    WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true',
    POWERTOOLS_TRACE_ENABLED: 'false',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: process.env.LOG_LEVEL ?? process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    ...(p.prettyLogs ? { POWERTOOLS_DEV: 'true' } : {}),
  };
  for (const [name, q] of Object.entries(p.queues)) {
    env[q.envVar] = q.url;
    const dlqEnvVar = (queueDefinitions[name as QueueName] as { dlqEnvVar?: string }).dlqEnvVar;
    if (dlqEnvVar) env[dlqEnvVar] = q.dlqUrl;
  }
  return env;
}

/** Sets the variables; returns what to hand to restoreEnv() to undo it. */
export function applyEnv(env: Record<string, string>): Record<string, string | undefined> {
  const previous: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) {
    previous[key] = process.env[key];
    process.env[key] = value;
  }
  return previous;
}

export function restoreEnv(previous: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(previous)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

/** Shared modules cache SDK clients and secrets per container; drop them after an env change. */
export async function resetSharedCaches(): Promise<void> {
  const [db, queues, secrets, box] = await Promise.all([
    import('../../shared/db/client.js'),
    import('../../shared/queues/client.js'),
    import('../../shared/secrets.js'),
    import('../../shared/crypto/secret-box.js'),
  ]);
  db.resetDbClient();
  queues.resetSqsClient();
  secrets.resetAppSecretsCache();
  box.resetSecretBox();
}
