/** The voice runtime host's sessions (shared/repositories/relay-sessions.ts): one live connection per call, revisioned saves. */
import { DeleteCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { relayKeys } from '../../../shared/db/keys.js';
import { closeRelaySession, getRelaySession, openRelaySession, relayConnection, saveRelaySession } from '../../../shared/repositories/relay-sessions.js';
import { conditionFailed, ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const claims = { tenant_id: T, call_id: CALL, agent_version_id: 'agv_1', number_id: 'pnb_1', exp: 2_000_000_000 };
const at = new Date('2026-11-18T15:00:00.000Z');
beforeEach(() => table.reset());

describe('relay sessions store', () => {
  it('opens the session and its connection pointer together; a second connection for the call is busy', async () => {
    expect(await openRelaySession({ claims, connectionId: 'conn-1', at })).toBe('opened');
    expect(await relayConnection('conn-1')).toEqual({ tenant_id: T, call_id: CALL });
    expect(table.get(relayKeys.session(T, CALL))).toMatchObject({ connection_id: 'conn-1', revision: 0, state: null, ttl: claims.exp + 3600 });
    expect(await openRelaySession({ claims, connectionId: 'conn-2', at })).toBe('busy');
    expect(await relayConnection('conn-2')).toBeUndefined();
  });

  it('replacing a connection API Gateway says is gone is conditioned on it', async () => {
    ddb
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejectsOnce(transactionCancelled(['ConditionalCheckFailed', 'None']))
      .rejectsOnce(new Error('boom'));
    expect(await openRelaySession({ claims, connectionId: 'conn-2', at, replacing: 'conn-1' })).toBe('opened');
    expect(inputsOf(TransactWriteCommand)[0]!.TransactItems[0].Put).toMatchObject({
      ConditionExpression: 'attribute_not_exists(pk) OR connection_id = :stale',
      ExpressionAttributeValues: { ':stale': 'conn-1' },
    });
    expect(await openRelaySession({ claims, connectionId: 'conn-2', at, replacing: 'conn-1' })).toBe('busy');
    await expect(openRelaySession({ claims, connectionId: 'conn-2', at })).rejects.toThrow('boom');
  });

  it('reads the state back from its JSON text', async () => {
    await openRelaySession({ claims, connectionId: 'conn-1', at });
    expect(await getRelaySession(T, CALL)).toMatchObject({ connection_id: 'conn-1', state: null, reply_context: null, generation: 0 });
    table.put({ ...table.get(relayKeys.session(T, CALL))!, ...relayKeys.session(T, CALL), state: '{"turn":2}', generation: 2 });
    expect(await getRelaySession(T, CALL)).toMatchObject({ state: { turn: 2 }, generation: 2 });
    expect(await getRelaySession(T, 'cal_01JBBBBBBBBBBBBBBBBBBBBBBB')).toBeUndefined();
  });

  it('saves only at the revision read and while the connection owns the session; false when beaten', async () => {
    const record = { tenant_id: T, call_id: CALL, connection_id: 'conn-1', claims, state: null, generation: 0, revision: 4, reply_context: null };
    ddb.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    expect(await saveRelaySession(record, { state: { turn: 1 }, generation: 1 })).toBe(true);
    const u = inputsOf(UpdateCommand)[0]!;
    expect(u.ConditionExpression).toBe('revision = :rev AND connection_id = :conn');
    expect(u.UpdateExpression).toBe('SET #state = :state, generation = :gen, revision = :next');
    expect(u.ExpressionAttributeValues).toEqual({ ':state': '{"turn":1}', ':gen': 1, ':next': 5, ':rev': 4, ':conn': 'conn-1' });
    expect(await saveRelaySession(record, { state: {}, generation: 1, reply_context: { model: 'm' } })).toBe(false);
    expect(inputsOf(UpdateCommand)[1]!.UpdateExpression).toContain('reply_context = :ctx');
  });

  it('closes the pointer always, and the session only while this connection owns it', async () => {
    ddb.on(DeleteCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    await expect(closeRelaySession('conn-1', { tenant_id: T, call_id: CALL })).resolves.toBeUndefined();
    const [pointer, session] = inputsOf(DeleteCommand);
    expect(pointer!.Key).toEqual(relayKeys.connection('conn-1'));
    expect(session).toMatchObject({
      Key: relayKeys.session(T, CALL),
      ConditionExpression: 'connection_id = :conn',
      ExpressionAttributeValues: { ':conn': 'conn-1' },
    });
  });
});
