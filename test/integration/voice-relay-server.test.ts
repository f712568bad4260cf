/**
 * The local voice runtime host: real WebSocket clients against the local stack's
 * /runtime/v1/relay (same port as the API). The session logic is a recording stub, so this
 * file tests the host: upgrade authentication, one socket per call, frames in, close out.
 */
import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { CreateRelaySession, RelaySessionDeps } from '../../infra/local/relay-session.js';
import { db, tableName } from '../../shared/db/client.js';
import { callPartition } from '../../shared/db/keys.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { mintStreamToken, verifyStreamToken } from '../../shared/telephony/call-tokens.js';
import { voiceRuntimeSettings } from '../../shared/voice/runtime-settings.js';
import { agentNumberWorld } from '../e2e/inbound-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

interface Recorded {
  deps: RelaySessionDeps;
  frames: string[];
  closed: boolean;
}
const sessions: Recorded[] = [];
/** A session that answers prompts and verifies setup's token the way the real one must; non-JSON makes it throw. */
const createSession: CreateRelaySession = (deps) => {
  const rec: Recorded = { deps, frames: [], closed: false };
  sessions.push(rec);
  return {
    async receive(raw) {
      rec.frames.push(raw);
      const msg = JSON.parse(raw) as { type: string; voicePrompt?: string; customParameters?: { token?: string } };
      if (msg.type === 'setup' && !(await deps.verifyToken(msg.customParameters?.token ?? '', deps.now()))) deps.close(1008, 'bad token');
      if (msg.type === 'prompt') deps.send({ type: 'text', token: `heard: ${msg.voicePrompt}`, last: true });
    },
    async socketClosed() {
      rec.closed = true;
    },
    state: () => ({}),
  };
};

const stack = useTestStack({ workers: false, relay: { createSession } });

type Opened = { ws: WebSocket; status?: never } | { ws?: never; status: number };
function connect(query: string, headers: Record<string, string> = {}, path = '/runtime/v1/relay'): Promise<Opened> {
  const url = `${stack.baseUrl.replace(/^http/, 'ws')}${path}${query ? `?${query}` : ''}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
    });
    ws.once('error', reject);
  });
}
const closed = (ws: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
const nextMessage = (ws: WebSocket) => new Promise<unknown>((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))));
const setup = (token: string) => JSON.stringify({ type: 'setup', sessionId: 'VX1', callSid: 'CA1', customParameters: { token } });
const prompt = (text: string) => JSON.stringify({ type: 'prompt', voicePrompt: text, last: true });

async function answeredCall() {
  const world = await agentNumberWorld(stack);
  const rung = await world.ring();
  const token = rung.token!;
  const check = verifyStreamToken(await callTokenKey(), token, new Date());
  if (!check.ok) throw new Error('ring gave no valid token');
  const partition = async () =>
    (
      await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': callPartition(world.tenantId, rung.call.id) },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  return { world, token, claims: check.claims, callId: rung.call.id, partition };
}

describe('the relay upgrade is authenticated before a socket exists', () => {
  it('no token → 401; a forged, expired or unknown-call token → 403; no session, nothing written', async () => {
    const c = await answeredCall();
    const before = JSON.stringify(await c.partition());
    const started = sessions.length;
    const key = await callTokenKey();
    expect((await connect('')).status).toBe(401);
    expect((await connect('token=')).status).toBe(401);
    expect((await connect(`token=${mintStreamToken(randomBytes(32), c.claims, new Date())}`)).status).toBe(403);
    expect((await connect(`token=${mintStreamToken(key, c.claims, new Date(Date.now() - 3_600_000), 60)}`)).status).toBe(403);
    expect((await connect(`token=${mintStreamToken(key, { ...c.claims, call_id: 'cal_01JZZZZZZZZZZZZZZZZZZZZZZZ' }, new Date())}`)).status).toBe(403);
    expect((await connect(`token=${c.token.slice(0, -2)}xx`)).status).toBe(403);
    expect(sessions.length).toBe(started);
    expect(JSON.stringify(await c.partition())).toBe(before);
  });

  it("X-Twilio-Signature, when sent, must be the call account's signature of the exact relay URL", async () => {
    const c = await answeredCall();
    const query = `token=${c.token}`;
    const url = `${stack.relayUrl}?${query}`;
    const started = sessions.length;
    const wrongKey = await connect(query, { 'x-twilio-signature': twilio.getExpectedTwilioSignature(randomBytes(16).toString('hex'), url, {}) });
    expect(wrongKey.status).toBe(403);
    const otherUrl = await connect(query, { 'x-twilio-signature': twilio.getExpectedTwilioSignature(c.world.creds.auth_token, `${url}&x=1`, {}) });
    expect(otherUrl.status).toBe(403);
    expect(sessions.length).toBe(started);

    const signed = await connect(query, { 'x-twilio-signature': twilio.getExpectedTwilioSignature(c.world.creds.auth_token, url, {}) });
    expect(signed.ws).toBeDefined();
    signed.ws!.close();
    await waitFor(() => sessions.at(-1)?.closed, { message: 'the session saw the close' });
  });

  it('any other upgrade path is refused', async () => {
    const c = await answeredCall();
    expect((await connect(`token=${c.token}`, {}, '/runtime/v1/stream')).status).toBe(404);
    expect((await connect(`token=${c.token}`, {}, '/v1/me')).status).toBe(404);
  });
});

describe('one live socket per call', () => {
  it('a second socket is closed 1008 while the first lives; after the first closes, a reconnect is served', async () => {
    const c = await answeredCall();
    const first = (await connect(`token=${c.token}`)).ws!;
    const second = (await connect(`token=${c.token}`)).ws!;
    expect(await closed(second)).toEqual({ code: 1008, reason: 'call already has a live relay socket' });
    // The first is untouched by the refusal.
    first.send(prompt('still here?'));
    expect(await nextMessage(first)).toEqual({ type: 'text', token: 'heard: still here?', last: true });

    const firstSession = sessions.at(-1)!;
    first.close();
    await waitFor(() => firstSession.closed, { message: 'the first session saw the close' });
    const again = (await connect(`token=${c.token}`)).ws!;
    again.send(prompt('back'));
    expect(await nextMessage(again)).toEqual({ type: 'text', token: 'heard: back', last: true });
    again.close();
  });
});

describe('frames', () => {
  it('malformed, binary and unknown frames (and a session that throws on them) do not kill the socket', async () => {
    const c = await answeredCall();
    const ws = (await connect(`token=${c.token}`)).ws!;
    ws.send(setup(c.token));
    ws.send('not json at all');
    ws.send('{"type":"prompt"');
    ws.send(Buffer.from([0, 1, 2]), { binary: true });
    ws.send(JSON.stringify({ type: 'mystery' }));
    ws.send(prompt('after the noise'));
    expect(await nextMessage(ws)).toEqual({ type: 'text', token: 'heard: after the noise', last: true });
    expect(ws.readyState).toBe(WebSocket.OPEN);
    const session = sessions.at(-1)!;
    expect(session.frames).toHaveLength(5); // the binary frame never reaches the session
    ws.close();
  });

  it("a setup whose customParameters.token is not the URL's closes the socket 1008", async () => {
    const c = await answeredCall();
    const other = await answeredCall();
    const ws = (await connect(`token=${c.token}`)).ws!;
    const session = sessions.at(-1)!;
    ws.send(setup(other.token));
    expect(await closed(ws)).toEqual({ code: 1008, reason: 'setup token does not match' });
    expect(session.frames).toEqual([]);
  });

  it("the session's verifyToken accepts only the URL's token, and its control plane loads the call", async () => {
    const c = await answeredCall();
    const ws = (await connect(`token=${c.token}`)).ws!;
    ws.send(setup(c.token));
    const session = await waitFor(() => sessions.find((s) => s.frames.length > 0 && s.frames[0]!.includes(c.token)));
    const claims = await session.deps.verifyToken(c.token, new Date());
    expect(claims).toMatchObject({ call_id: c.callId });
    const other = await answeredCall();
    expect(await session.deps.verifyToken(other.token, new Date())).toBeNull();
    expect(await session.deps.controlPlaneFor(claims!).loadCall(claims!)).toMatchObject({ direction: 'inbound' });
    expect(session.deps.firstTokenDeadlineMs).toBe(voiceRuntimeSettings().firstTokenDeadlineMs);
    ws.close();
  });
});
