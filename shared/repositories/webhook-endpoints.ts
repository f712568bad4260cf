/**
 * The tenant's single webhook endpoint (`TENANT#<t>` / `WEBHOOK_ENDPOINT`) and its signing
 * secrets, sealed with the secret box (KMS on AWS) under a context naming the tenant, the
 * endpoint and the secret, so a sealed value copied elsewhere does not open.
 *
 * Secrets: the newest has `expires_at: null`; a rotation gives every older live secret an
 * expiry `overlap_seconds` ahead (never later than one it already had), and deliveries sign
 * with every secret still live at send time. Expired secrets are dropped at the next write.
 */

import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { open, seal } from '../crypto/secret-box.js';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction, noChange, type TransactItem } from '../db/conditional-transaction.js';
import { webhookKeys } from '../db/keys.js';
import { putNew } from '../db/transact-write.js';
import { newId } from '../ids.js';
import { RACE, type RetryPolicy } from '../retry.js';

export interface StoredSigningSecret {
  id: string;
  sealed: string;
  created_at: string;
  expires_at: string | null;
}

export interface WebhookEndpointRecord {
  tenant_id: string;
  id: string;
  url: string;
  description: string | null;
  enabled_events: string[] | null;
  secrets: StoredSigningSecret[];
  created_at: string;
  updated_at: string;
  revision: number;
}

export interface EndpointSettings {
  url: string;
  description: string | null;
  enabled_events: string[] | null;
}

/** Writers of one endpoint that keep losing to each other re-read this many times in all. */
const WRITES: RetryPolicy = { ...RACE, attempts: 5 };

const sealContext = (tenantId: string, endpointId: string, secretId: string) => ({
  purpose: 'webhook_signing_secret',
  tenant_id: tenantId,
  endpoint_id: endpointId,
  secret_id: secretId,
});

const isLive = (s: StoredSigningSecret, at: Date) => s.expires_at === null || Date.parse(s.expires_at) > at.getTime();

export async function getWebhookEndpoint(tenantId: string): Promise<WebhookEndpointRecord | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: webhookKeys.endpoint(tenantId), ConsistentRead: true }));
  return out.Item as WebhookEndpointRecord | undefined;
}

/** The secret (drawn by the caller) as stored: an id of its own, sealed under a context naming it. */
async function sealSecret(tenantId: string, endpointId: string, plain: string, at: Date): Promise<StoredSigningSecret> {
  const id = newId('whs');
  return { id, sealed: await seal(plain, sealContext(tenantId, endpointId, id)), created_at: at.toISOString(), expires_at: null };
}

/**
 * Creates the endpoint (with `firstSecret` as its first secret, answered once) or replaces its
 * settings (secrets kept: a URL change must not break verification; `firstSecret` unused).
 * Conditional on what was read, so two concurrent PUTs never leave two first secrets or lose a rotation.
 */
export async function putWebhookEndpoint(
  tenantId: string,
  settings: EndpointSettings,
  at: Date,
  firstSecret: string,
): Promise<{ endpoint: WebhookEndpointRecord; signingSecret: string | null }> {
  return conditionalTransaction<{ endpoint: WebhookEndpointRecord; signingSecret: string | null }>({
    decide: async () => {
      const existing = await getWebhookEndpoint(tenantId);
      if (!existing) {
        const id = newId('whe');
        const secret = await sealSecret(tenantId, id, firstSecret, at);
        const endpoint: WebhookEndpointRecord = {
          tenant_id: tenantId,
          id,
          ...settings,
          secrets: [secret],
          created_at: at.toISOString(),
          updated_at: at.toISOString(),
          revision: 1,
        };
        return commit([putNew({ ...webhookKeys.endpoint(tenantId), type: 'webhook_endpoint', ...endpoint })], { endpoint, signingSecret: firstSecret });
      }
      const endpoint: WebhookEndpointRecord = {
        ...existing,
        ...settings,
        secrets: existing.secrets.filter((s) => isLive(s, at)),
        updated_at: at.toISOString(),
        revision: existing.revision + 1,
      };
      return commit([revisionPut(tenantId, endpoint, existing.revision)], { endpoint, signingSecret: null });
    },
    policy: WRITES,
  });
}

/** The endpoint's next revision, put only over the revision read. */
const revisionPut = (tenantId: string, endpoint: WebhookEndpointRecord, expectedRevision: number): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...webhookKeys.endpoint(tenantId), type: 'webhook_endpoint', ...endpoint },
    ConditionExpression: 'attribute_exists(pk) AND revision = :r',
    ExpressionAttributeValues: { ':r': expectedRevision },
  },
});

export type RotateOutcome = { kind: 'rotated'; endpoint: WebhookEndpointRecord } | { kind: 'no_endpoint' } | { kind: 'too_many_live'; live: number };

/**
 * `secret` (drawn by the caller) becomes the current secret; older live ones stay valid for
 * `overlapSeconds`. Refused (`too_many_live`, nothing written) when that would leave more than
 * `maxLive` secrets live at once.
 */
export async function rotateWebhookSecret(
  tenantId: string,
  rotation: { secret: string; overlapSeconds: number; maxLive: number },
  at: Date,
): Promise<RotateOutcome> {
  const { overlapSeconds } = rotation;
  return conditionalTransaction<RotateOutcome>({
    decide: async () => {
      const existing = await getWebhookEndpoint(tenantId);
      if (!existing) return noChange({ kind: 'no_endpoint' });
      const until = new Date(at.getTime() + overlapSeconds * 1000);
      const older = existing.secrets
        .filter((s) => isLive(s, at))
        .map((s) => ({ ...s, expires_at: s.expires_at && Date.parse(s.expires_at) < until.getTime() ? s.expires_at : until.toISOString() }))
        .filter((s) => isLive(s, at));
      if (older.length + 1 > rotation.maxLive) return noChange({ kind: 'too_many_live', live: older.length });
      const secret = await sealSecret(tenantId, existing.id, rotation.secret, at);
      const endpoint: WebhookEndpointRecord = { ...existing, secrets: [secret, ...older], updated_at: at.toISOString(), revision: existing.revision + 1 };
      return commit([revisionPut(tenantId, endpoint, existing.revision)], { kind: 'rotated', endpoint });
    },
    policy: WRITES,
  });
}

export async function deleteWebhookEndpoint(tenantId: string): Promise<boolean> {
  const out = await db().send(new DeleteCommand({ TableName: tableName(), Key: webhookKeys.endpoint(tenantId), ReturnValues: 'ALL_OLD' }));
  return Boolean(out.Attributes);
}

/**
 * Opened secrets, kept for the life of the container: a secret's sealed value never changes
 * (a rotation adds a new id), so opening it once saves a KMS Decrypt per delivery. Keyed by
 * tenant, endpoint, secret id and the sealed value itself; bounded.
 */
const opened = new Map<string, Promise<string>>();
const MAX_OPENED = 1000;

function openSecret(endpoint: WebhookEndpointRecord, secret: StoredSigningSecret): Promise<string> {
  const key = `${endpoint.tenant_id}|${endpoint.id}|${secret.id}|${secret.sealed}`;
  let plain = opened.get(key);
  if (!plain) {
    if (opened.size >= MAX_OPENED) opened.delete(opened.keys().next().value!);
    plain = open(secret.sealed, sealContext(endpoint.tenant_id, endpoint.id, secret.id));
    plain.catch(() => opened.delete(key));
    opened.set(key, plain);
  }
  return plain;
}

/** The plaintext secrets live at `at`, newest first: what a delivery signs with. */
export async function liveSigningSecrets(endpoint: WebhookEndpointRecord, at: Date): Promise<string[]> {
  return Promise.all(endpoint.secrets.filter((s) => isLive(s, at)).map((s) => openSecret(endpoint, s)));
}

/** Does the endpoint take this event type? */
export const endpointTakes = (endpoint: WebhookEndpointRecord, eventType: string): boolean =>
  endpoint.enabled_events === null || endpoint.enabled_events.includes(eventType);

export function presentWebhookEndpoint(endpoint: WebhookEndpointRecord, at: Date) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    enabled_events: endpoint.enabled_events,
    status: 'enabled' as const,
    secrets: endpoint.secrets.filter((s) => isLive(s, at)).map((s) => ({ id: s.id, created_at: s.created_at, expires_at: s.expires_at })),
    created_at: endpoint.created_at,
    updated_at: endpoint.updated_at,
  };
}
