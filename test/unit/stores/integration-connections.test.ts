/** Calendar connections (shared/repositories/integration-connections.ts): one live calendar, sealed tokens, revocation, OAuth state taken once. */
process.env.CREDENTIALS_KEY ??= Buffer.alloc(32, 7).toString('base64');

import { DeleteCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { integrationKeys } from '../../../shared/db/keys.js';
import { DomainError } from '../../../shared/errors.js';
import {
  activeCalendar,
  createConnection,
  getConnectionRecord,
  listConnections,
  markConnectionError,
  openTokens,
  revokeConnection,
  sandboxEvents,
  savePendingAuthorization,
  takePendingAuthorization,
} from '../../../shared/repositories/integration-connections.js';
import { conditionFailed, ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-11-18T15:00:00.000Z');
const tokens = { access_token: 'at-secret', refresh_token: 'rt-secret' };
beforeEach(() => table.reset());

describe('connecting a calendar', () => {
  it('puts the guard and the connection together (tokens sealed); a second live calendar is 409 naming the first', async () => {
    const c = await createConnection(T, { provider: 'google_calendar', scopes: ['calendar.events'], tokens }, at);
    expect(c).toMatchObject({ provider: 'google_calendar', status: 'active', timezone: 'America/New_York' });
    expect(c).not.toHaveProperty('sealed_tokens');
    const record = (await getConnectionRecord(T, c.id))!;
    expect(JSON.stringify(record)).not.toContain('rt-secret');
    expect(await openTokens(record)).toEqual(tokens);
    expect((await activeCalendar(T))?.id).toBe(c.id);
    const err = await createConnection(T, { provider: 'sandbox_calendar', scopes: [] }, at).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'calendar_already_connected', extra: { connection_id: c.id } });
    expect((await listConnections(T, { limit: 5 })).data.map((x) => x.id)).toEqual([c.id]);
  });

  it('a refused refresh marks it error only while active with the tokens refused', async () => {
    const c = (await getConnectionRecord(T, (await createConnection(T, { provider: 'google_calendar', scopes: [], tokens }, at)).id))!;
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(markConnectionError(c, at)).resolves.toBeUndefined();
    expect(inputsOf(UpdateCommand)[0]).toMatchObject({
      ConditionExpression: '#status = :active AND sealed_tokens = :read',
      ExpressionAttributeValues: { ':read': c.sealed_tokens, ':error': 'error' },
    });
  });
});

describe('revoking', () => {
  it('revokes, drops the tokens and removes the guard only if it names this connection', async () => {
    const c = await createConnection(T, { provider: 'google_calendar', scopes: [], tokens }, at);
    ddb.on(TransactWriteCommand).resolves({});
    const out = await revokeConnection(T, c.id, at);
    expect(out?.connection.status).toBe('revoked');
    expect(out?.revoked?.id).toBe(c.id);
    const [update, guard] = inputsOf(TransactWriteCommand)[1]!.TransactItems;
    expect(update.Update.UpdateExpression).toContain('REMOVE sealed_tokens, access_expires_at');
    expect(guard.Delete).toMatchObject({ Key: integrationKeys.activeCalendar(T), ConditionExpression: 'attribute_not_exists(pk) OR connection_id = :id' });
  });

  it('a revoked or unknown one changes nothing; a lost race answers it as read again', async () => {
    expect(await revokeConnection(T, 'icn_01JZZZZZZZZZZZZZZZZZZZZZZZ', at)).toBeUndefined();
    const c = await createConnection(T, { provider: 'sandbox_calendar', scopes: [] }, at);
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    expect(await revokeConnection(T, c.id, at)).toMatchObject({ revoked: null, connection: { id: c.id } });
  });
});

describe('sandbox events and OAuth state', () => {
  it('answers the sandbox events overlapping the range, reading from a day before it', async () => {
    ddb.on(QueryCommand).resolves({
      Items: [
        { starts_at: '2026-11-20T08:00:00.000Z', ends_at: '2026-11-20T09:30:00.000Z' },
        { starts_at: '2026-11-20T07:00:00.000Z', ends_at: '2026-11-20T08:00:00.000Z' },
      ],
    });
    const from = Date.parse('2026-11-20T09:00:00.000Z');
    expect(await sandboxEvents(T, 'icn_01JAAAAAAAAAAAAAAAAAAAAAAA', from, from + 3_600_000)).toEqual([
      { start: Date.parse('2026-11-20T08:00:00.000Z'), end: Date.parse('2026-11-20T09:30:00.000Z') },
    ]);
    expect(inputsOf(QueryCommand)[0]!.ExpressionAttributeValues[':a']).toBe('EVENT#2026-11-19T09:00:00.000Z');
  });

  it('keeps the PKCE verifier sealed, and hands it over once, never once expired', async () => {
    const p = { tenant_id: T, connection_id: 'icn_1', provider: 'google_calendar' as const, code_verifier: 'v-secret', expires_at: '2099-01-01T00:00:00.000Z' };
    await savePendingAuthorization('state-1', p);
    const stored = table.get(integrationKeys.oauthState('state-1'))!;
    expect(JSON.stringify(stored)).not.toContain('v-secret');
    ddb.on(DeleteCommand).resolvesOnce({ Attributes: stored }).rejectsOnce(conditionFailed());
    expect(await takePendingAuthorization('state-1', at)).toMatchObject({ code_verifier: 'v-secret', tenant_id: T });
    expect(inputsOf(DeleteCommand)[0]).toMatchObject({
      ConditionExpression: 'attribute_exists(pk) AND expires_at > :now',
      ExpressionAttributeValues: { ':now': at.toISOString() },
      ReturnValues: 'ALL_OLD',
    });
    expect(await takePendingAuthorization('state-1', at)).toBeUndefined();
  });
});
