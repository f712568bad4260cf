/**
 * A stream_token route's early read, as the token check runs it (`alongside`; the in-memory table): it runs beside the
 * call's window check, so the two reads overlap, and it is handed over only when the token
 * is accepted — a spent token is call_ended whatever the read found or threw, and a forged
 * one reads nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { authenticateStreamToken } from '../../shared/auth/stream-token.js';
import { callKeys } from '../../shared/db/keys.js';
import { LATE_EVENT_WINDOW_SECONDS } from '../../shared/policy/call-state/runtime-window.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { mintStreamToken } from '../../shared/telephony/call-tokens.js';
import { memoryTable } from '../support/document-client-mock.js';

const tenantId = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const callId = 'cal_01JBBBBBBBBBBBBBBBBBBBBBBB';
const at = new Date('2026-11-17T15:00:00.000Z');
const table = memoryTable();
let auth: string;

beforeAll(async () => {
  vi.stubEnv('APP_SECRETS_JSON', JSON.stringify({ api_key_pepper: 'p'.repeat(32), cursor_key: 'c'.repeat(32) }));
  const claims = { tenant_id: tenantId, call_id: callId, agent_version_id: 'agv_01JCCCCCCCCCCCCCCCCCCCCCCC', number_id: 'num_01JDDDDDDDDDDDDDDDDDDDDDDD' };
  auth = `Bearer ${mintStreamToken(await callTokenKey(), claims, at)}`;
});
afterAll(() => vi.unstubAllEnvs());
beforeEach(() => table.reset());

const putCall = (ended_at: string | null) =>
  table.put({
    ...callKeys.call(tenantId, callId),
    state: ended_at ? 'completed' : 'in_conversation',
    ended_at,
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
  });

/** A read that resolves only when released, recording whether it started before the call's read finished. */
function slowRead<T>(value: T | Error) {
  const log = { started: false, callReadsWhenStarted: -1 };
  let release = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const read = async () => {
    log.started = true;
    log.callReadsWhenStarted = table.sent.length;
    await gate;
    if (value instanceof Error) throw value;
    return value;
  };
  return { read, release, log };
}

describe('authenticateStreamToken with an alongside read', () => {
  it('starts the read beside the call check and hands its result over once the token is accepted', async () => {
    putCall(null);
    const r = slowRead('icn_01JEEEEEEEEEEEEEEEEEEEEEEE');
    const pending = authenticateStreamToken(auth, callId, at, r.read);
    await vi.waitFor(() => expect(table.sent.length).toBe(1));
    // Both reads are under way before either answered: one round trip, not two in a row.
    expect(r.log).toEqual({ started: true, callReadsWhenStarted: 0 });
    r.release();
    expect(await pending).toMatchObject({ claims: { call_id: callId }, alongside: 'icn_01JEEEEEEEEEEEEEEEEEEEEEEE' });
  });

  it('a spent token is call_ended whatever the read found or threw', async () => {
    putCall(new Date(at.getTime() - (LATE_EVENT_WINDOW_SECONDS + 1) * 1000).toISOString());
    for (const value of ['icn_01JEEEEEEEEEEEEEEEEEEEEEEE', new Error('read failed')]) {
      const r = slowRead(value);
      r.release();
      await expect(authenticateStreamToken(auth, callId, at, r.read)).rejects.toMatchObject({ code: 'call_ended' });
    }
  });

  it('a token for another call, or a forged one, reads nothing', async () => {
    const r = slowRead('icn_01JEEEEEEEEEEEEEEEEEEEEEEE');
    r.release();
    await expect(authenticateStreamToken(auth, 'cal_01JFFFFFFFFFFFFFFFFFFFFFFF', at, r.read)).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(authenticateStreamToken(`${auth}x`, callId, at, r.read)).rejects.toMatchObject({ kind: 'forbidden' });
    expect(r.log.started).toBe(false);
    expect(table.sent).toEqual([]);
  });

  it('an accepted token whose read failed fails the request with that error', async () => {
    putCall(null);
    const r = slowRead(new Error('read failed'));
    r.release();
    await expect(authenticateStreamToken(auth, callId, at, r.read)).rejects.toThrow('read failed');
  });
});
