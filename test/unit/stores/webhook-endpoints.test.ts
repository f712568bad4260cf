/**
 * The webhook endpoint's store with DynamoDB mocked (aws-sdk-client-mock) and the local secret
 * box: the secret it is handed is sealed under its own id and answered once; a replace keeps
 * the live secrets and is conditional on the revision read (a lost race reads again); a
 * rotation over the live limit it is handed writes nothing; deliveries open only live secrets.
 */
process.env.CREDENTIALS_KEY ??= Buffer.alloc(32, 7).toString('base64');

import { DeleteCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { seal } from '../../../shared/crypto/secret-box.js';
import { webhookKeys } from '../../../shared/db/keys.js';
import { newId } from '../../../shared/ids.js';
import {
  deleteWebhookEndpoint,
  liveSigningSecrets,
  putWebhookEndpoint,
  rotateWebhookSecret,
  type WebhookEndpointRecord,
} from '../../../shared/repositories/webhook-endpoints.js';
import { ddb, transactionCancelled } from '../../support/document-client-mock.js';

beforeEach(() => ddb.reset());

const at = new Date('2026-03-01T12:00:00.000Z');
const settings = { url: 'https://hooks.example.com/in', description: null, enabled_events: null };

async function stored(tenantId: string, secrets: { plain: string; expires_at: string | null }[], revision = 3): Promise<WebhookEndpointRecord> {
  const id = 'whe_1';
  return {
    tenant_id: tenantId,
    id,
    ...settings,
    secrets: await Promise.all(
      secrets.map(async (s, i) => ({
        id: `whs_${i}`,
        sealed: await seal(s.plain, { purpose: 'webhook_signing_secret', tenant_id: tenantId, endpoint_id: id, secret_id: `whs_${i}` }),
        created_at: at.toISOString(),
        expires_at: s.expires_at,
      })),
    ),
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
    revision,
  };
}
/** The one Put of the nth write (each write is a one-item conditional transaction). */
const putItem = (n = 0) => ddb.commandCalls(TransactWriteCommand)[n]!.args[0].input.TransactItems![0]!.Put!;

describe('putWebhookEndpoint', () => {
  it('creates the endpoint with the secret it was handed, sealed, answered once; only if none exists', async () => {
    const tenantId = newId('ten');
    ddb.on(GetCommand).resolves({}).on(TransactWriteCommand).resolves({});
    const out = await putWebhookEndpoint(tenantId, settings, at, 'whsec_first');
    expect(out.signingSecret).toBe('whsec_first');
    expect(putItem().ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(putItem().Item).toMatchObject({ ...webhookKeys.endpoint(tenantId), type: 'webhook_endpoint', revision: 1, url: settings.url });
    const [secret] = out.endpoint.secrets;
    expect(secret!.sealed).not.toContain('whsec_first');
    expect(await liveSigningSecrets(out.endpoint, at)).toEqual(['whsec_first']);
  });

  it('a replace keeps the live secrets (drops expired ones), answers no secret and is conditional on the revision read; a lost race reads again', async () => {
    const tenantId = newId('ten');
    const existing = await stored(tenantId, [
      { plain: 'whsec_new', expires_at: null },
      { plain: 'whsec_gone', expires_at: new Date(at.getTime() - 1).toISOString() },
    ]);
    const moved = { ...existing, revision: 4 };
    ddb.on(GetCommand).resolvesOnce({ Item: existing }).resolves({ Item: moved });
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['ConditionalCheckFailed']))
      .resolves({});
    const out = await putWebhookEndpoint(tenantId, { ...settings, url: 'https://hooks.example.com/v2' }, at, 'whsec_unused');
    expect(out.signingSecret).toBeNull();
    expect(out.endpoint).toMatchObject({ url: 'https://hooks.example.com/v2', revision: 5 });
    expect(out.endpoint.secrets.map((s) => s.id)).toEqual(['whs_0']);
    expect(putItem(0).ExpressionAttributeValues).toEqual({ ':r': 3 });
    expect(putItem(1)).toMatchObject({ ConditionExpression: 'attribute_exists(pk) AND revision = :r', ExpressionAttributeValues: { ':r': 4 } });
  });
});

describe('rotateWebhookSecret', () => {
  it('the new secret is current; older live ones expire after the overlap, never later than they already would', async () => {
    const tenantId = newId('ten');
    const soon = new Date(at.getTime() + 60_000).toISOString();
    const existing = await stored(tenantId, [
      { plain: 'whsec_a', expires_at: null },
      { plain: 'whsec_b', expires_at: soon },
    ]);
    ddb.on(GetCommand).resolves({ Item: existing }).on(TransactWriteCommand).resolves({});
    const out = await rotateWebhookSecret(tenantId, { secret: 'whsec_c', overlapSeconds: 3600, maxLive: 5 }, at);
    expect(out.kind).toBe('rotated');
    const endpoint = (out as { endpoint: WebhookEndpointRecord }).endpoint;
    expect(endpoint.secrets.map((s) => s.expires_at)).toEqual([null, new Date(at.getTime() + 3_600_000).toISOString(), soon]);
    expect(await liveSigningSecrets(endpoint, at)).toEqual(['whsec_c', 'whsec_a', 'whsec_b']);
    // After the short overlap only the two newer secrets sign.
    expect(await liveSigningSecrets(endpoint, new Date(at.getTime() + 120_000))).toEqual(['whsec_c', 'whsec_a']);
    expect(putItem().ExpressionAttributeValues).toEqual({ ':r': 3 });
  });

  it('over the live limit it was handed: refused, nothing written; no endpoint: said so', async () => {
    const tenantId = newId('ten');
    const existing = await stored(tenantId, [
      { plain: 'whsec_a', expires_at: null },
      { plain: 'whsec_b', expires_at: new Date(at.getTime() + 60_000).toISOString() },
    ]);
    ddb.on(GetCommand).resolvesOnce({ Item: existing }).resolves({});
    expect(await rotateWebhookSecret(tenantId, { secret: 'whsec_c', overlapSeconds: 3600, maxLive: 2 }, at)).toEqual({ kind: 'too_many_live', live: 2 });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(await rotateWebhookSecret(tenantId, { secret: 'whsec_c', overlapSeconds: 3600, maxLive: 2 }, at)).toEqual({ kind: 'no_endpoint' });
  });
});

describe('deleteWebhookEndpoint', () => {
  it('answers whether there was an endpoint to delete', async () => {
    const tenantId = newId('ten');
    ddb
      .on(DeleteCommand)
      .resolvesOnce({ Attributes: { id: 'whe_1' } })
      .resolves({});
    expect(await deleteWebhookEndpoint(tenantId)).toBe(true);
    expect(await deleteWebhookEndpoint(tenantId)).toBe(false);
    expect(ddb.commandCalls(DeleteCommand)[0]!.args[0].input).toMatchObject({ Key: webhookKeys.endpoint(tenantId), ReturnValues: 'ALL_OLD' });
  });
});
