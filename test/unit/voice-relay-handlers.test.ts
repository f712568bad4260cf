/**
 * The AWS voice runtime host's Lambda handlers ($connect, $default, $disconnect) with
 * DynamoDB and the API Gateway Management API mocked (aws-sdk-client-mock): the table is a
 * small in-memory map honouring the conditions the relay store writes under, the control
 * plane's HTTP posts are captured, and the conversation core is a scripted stand-in with the
 * core's contract (generation bumped by a prompt or an interrupt; stale replies dropped).
 */
import { randomBytes } from 'node:crypto';
import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GetConnectionCommand, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReplyPart, ReplyRequest } from '../../shared/voice/ports.js';
import type { CoreInput, RelayCore } from '../../shared/voice/relay-core.js';

/* ---- the scripted core ---- */

interface FakeState {
  generation: number;
  ended: boolean;
  live: boolean;
  seq: number;
}
const fakeCore: RelayCore<FakeState> = {
  initialState: () => ({ generation: 0, ended: false, live: false, seq: 0 }),
  callSetup: (brief) => ({ greeting: 'hi', callId: brief.claims.call_id }),
  step(state, input: CoreInput, now) {
    const s = structuredClone(state);
    const out: ReturnType<RelayCore<FakeState>['step']> = { state: s, send: [], events: [], effects: [] };
    const event = (body: Record<string, unknown>) => out.events.push({ id: `VX1:${s.seq++}`, at: now.toISOString(), ...body } as never);
    switch (input.type) {
      case 'start':
        s.live = true;
        event({ type: 'disclosure', text: 'hi' });
        break;
      case 'inbound':
        if (input.message.type === 'prompt') {
          event({ type: 'turn', speaker: 'contact', text: input.message.voicePrompt });
          out.effects.push({ kind: 'start_reply', generation: ++s.generation, messages: [{ role: 'user', content: input.message.voicePrompt }], language: 'en-US' });
        }
        if (input.message.type === 'interrupt') out.effects.push({ kind: 'abort_reply', generation: s.generation++ });
        break;
      case 'invalid_frame':
        out.effects.push({ kind: 'log', level: 'warn', msg: 'inbound frame ignored', fields: { reason: input.reason } });
        break;
      case 'reply_delta':
        if (input.generation === s.generation) out.send.push({ type: 'text', token: input.text, last: false });
        break;
      case 'reply_finished':
        if (input.generation === s.generation) out.send.push({ type: 'text', token: '', last: true });
        break;
      case 'socket_closed':
        s.ended = true;
        event({ type: 'hangup', by: 'contact' });
        break;
    }
    return out;
  },
};
vi.mock('../../shared/voice/relay-core.js', () => ({ loadRelayCore: async () => fakeCore }));

// The model the handlers stream with, passed through relayHostDeps' model argument.
const model = vi.hoisted(() => ({ stream: (async function* () {}) as (req: import('../../shared/voice/ports.js').ReplyRequest) => AsyncIterable<import('../../shared/voice/ports.js').ReplyPart> }));
vi.mock('../../shared/voice/relay-aws.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../shared/voice/relay-aws.js')>();
  return { ...mod, relayHostDeps: (endpoint: string) => mod.relayHostDeps(endpoint, { stream: (req) => model.stream(req) }) };
});

/* ---- the table ---- */

const table = new Map<string, Record<string, unknown>>();
const k = (key: { pk: unknown; sk: unknown }) => `${key.pk}|${key.sk}`;
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'condition', $metadata: {} });
const ddb = mockClient(DynamoDBDocumentClient);
const api = mockClient(ApiGatewayManagementApiClient);
function installTable() {
  ddb.reset();
  ddb.on(GetCommand).callsFake(async (input) => ({ Item: structuredClone(table.get(k(input.Key))) }));
  ddb.on(TransactWriteCommand).callsFake(async (input) => {
    const puts = input.TransactItems.map((t: { Put: { Item: Record<string, unknown>; ConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> } }) => t.Put);
    for (const put of puts) {
      const existing = table.get(k(put.Item as never));
      const cond = put.ConditionExpression;
      const ok = !cond || !existing || (cond.includes('connection_id = :stale') && existing.connection_id === put.ExpressionAttributeValues?.[':stale']);
      if (!ok) throw new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] });
    }
    for (const put of puts) table.set(k(put.Item as never), structuredClone(put.Item));
    return {};
  });
  ddb.on(UpdateCommand).callsFake(async (input) => {
    const item = table.get(k(input.Key));
    const v = input.ExpressionAttributeValues;
    if (!item || item.revision !== v[':rev'] || item.connection_id !== v[':conn']) throw conditionFailed();
    Object.assign(item, { state: v[':state'], generation: v[':gen'], revision: v[':next'] }, ':ctx' in v ? { reply_context: v[':ctx'] } : {});
    return {};
  });
  ddb.on(DeleteCommand).callsFake(async (input) => {
    const item = table.get(k(input.Key));
    if (input.ConditionExpression && item?.connection_id !== input.ExpressionAttributeValues[':conn']) throw conditionFailed();
    table.delete(k(input.Key));
    return {};
  });
}

/* ---- the control plane's HTTP side ---- */

const posted: { url: string; events: { id: string; type: string }[] }[] = [];
const realFetch = globalThis.fetch;

const secrets = { api_key_pepper: 'p'.repeat(40), cursor_key: randomBytes(32).toString('hex') };
const tenantId = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const callId = 'cal_01JBBBBBBBBBBBBBBBBBBBBBBB';
const versionId = 'agv_01JCCCCCCCCCCCCCCCCCCCCCCC';
let token: string;
let claims: import('../../shared/telephony/call-tokens.js').VerifiedStreamClaims;

const ctx = (connectionId: string, routeKey: string) => ({ connectionId, routeKey, domainName: 'abc.execute-api.us-east-1.amazonaws.com', stage: 'live', eventType: 'MESSAGE', messageDirection: 'IN' }) as unknown as APIGatewayProxyWebsocketEventV2['requestContext'];
const connectEvent = (connectionId: string, query: Record<string, string>) => ({ requestContext: ctx(connectionId, '$connect'), queryStringParameters: query, headers: {}, isBase64Encoded: false }) as APIGatewayProxyWebsocketEventV2;
const frame = (connectionId: string, body: unknown) => ({ requestContext: ctx(connectionId, '$default'), body: typeof body === 'string' ? body : JSON.stringify(body), isBase64Encoded: false }) as APIGatewayProxyWebsocketEventV2;
const sentTexts = (connectionId: string) =>
  api.commandCalls(PostToConnectionCommand, { ConnectionId: connectionId }).map((c) => JSON.parse(Buffer.from(c.args[0].input.Data as Uint8Array).toString('utf8')) as { type: string; token: string; last: boolean });
const session = () => table.get(`${`TENANT#${tenantId}#CALL#${callId}`}|RELAY_SESSION`);

let handlers: { connect: typeof import('../../functions/relay/connect.js').handler; frame: typeof import('../../functions/relay/default.js').handler; disconnect: typeof import('../../functions/relay/disconnect.js').handler };
let setModel: (m: (req: ReplyRequest) => AsyncIterable<ReplyPart>) => void;

beforeAll(async () => {
  vi.stubEnv('TABLE_NAME', 'relay-unit');
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'x');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'x');
  vi.stubEnv('APP_SECRETS_JSON', JSON.stringify(secrets));
  vi.stubEnv('PUBLIC_BASE_URL', 'https://api.example.test');
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    posted.push({ url, events: (JSON.parse(String(init.body)) as { events: { id: string; type: string }[] }).events });
    return new Response(JSON.stringify({ results: [] }), { status: 200 });
  });
  const { callTokenKey } = await import('../../shared/telephony/call-token-key.js');
  const { mintStreamToken, verifyStreamToken } = await import('../../shared/telephony/call-tokens.js');
  token = mintStreamToken(await callTokenKey(), { tenant_id: tenantId, call_id: callId, agent_version_id: versionId, number_id: 'num_01JDDDDDDDDDDDDDDDDDDDDDDD' }, new Date());
  const checked = verifyStreamToken(await callTokenKey(), token, new Date());
  if (!checked.ok) throw new Error('token');
  claims = checked.claims;
  setModel = (m) => (model.stream = m);
  handlers = {
    connect: (await import('../../functions/relay/connect.js')).handler,
    frame: (await import('../../functions/relay/default.js')).handler,
    disconnect: (await import('../../functions/relay/disconnect.js')).handler,
  };
});
afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  globalThis.fetch = realFetch;
});
beforeEach(() => {
  table.clear();
  posted.length = 0;
  installTable();
  api.reset();
  api.on(PostToConnectionCommand).resolves({});
  api.on(DeleteConnectionCommand).resolves({});
  // The call the token names, as the calls store keeps it (a mock-carrier account).
  table.set(`TENANT#${tenantId}#CALL#${callId}|CALL`, { pk: `TENANT#${tenantId}#CALL#${callId}`, sk: 'CALL', id: callId, tenant_id: tenantId, direction: 'inbound', telephony_account_id: 'tac_01JEEEEEEEEEEEEEEEEEEEEEEE', inbound: { agent_version_id: versionId } });
});

describe('$connect', () => {
  it('no token → 401, a bad or expired token → 403, and nothing is written', async () => {
    const { mintStreamToken } = await import('../../shared/telephony/call-tokens.js');
    expect(await handlers.connect(connectEvent('c0', {}))).toEqual({ statusCode: 401 });
    expect(await handlers.connect(connectEvent('c0', { token: `${token.slice(0, -3)}abc` }))).toEqual({ statusCode: 403 });
    expect(await handlers.connect(connectEvent('c0', { token: mintStreamToken(randomBytes(32), claims, new Date()) }))).toEqual({ statusCode: 403 });
    const { callTokenKey } = await import('../../shared/telephony/call-token-key.js');
    expect(await handlers.connect(connectEvent('c0', { token: mintStreamToken(await callTokenKey(), claims, new Date(Date.now() - 7_200_000), 60) }))).toEqual({ statusCode: 403 });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(session()).toBeUndefined();
  });

  it('opens the session with a conditional put; a second live connection is refused (409); one API Gateway says is gone is replaced', async () => {
    expect(await handlers.connect(connectEvent('c1', { token }))).toEqual({ statusCode: 200 });
    expect(session()).toMatchObject({ connection_id: 'c1', generation: 0, revision: 0, claims: { call_id: callId } });
    expect(JSON.stringify(session())).not.toContain(token); // the credential is not stored

    api.on(GetConnectionCommand).resolves({});
    expect(await handlers.connect(connectEvent('c2', { token }))).toEqual({ statusCode: 409 });
    expect(session()).toMatchObject({ connection_id: 'c1' });

    api.on(GetConnectionCommand).rejects(new GoneException({ message: 'gone', $metadata: {} }));
    expect(await handlers.connect(connectEvent('c3', { token }))).toEqual({ statusCode: 200 });
    expect(session()).toMatchObject({ connection_id: 'c3' });
  });
});

describe('$default', () => {
  async function connected(connectionId: string) {
    expect(await handlers.connect(connectEvent(connectionId, { token }))).toEqual({ statusCode: 200 });
  }

  it('a setup with another call\'s token closes the connection; nothing is stepped', async () => {
    await connected('c1');
    const { mintStreamToken } = await import('../../shared/telephony/call-tokens.js');
    const { callTokenKey } = await import('../../shared/telephony/call-token-key.js');
    const other = mintStreamToken(await callTokenKey(), { ...claims, call_id: 'cal_01JZZZZZZZZZZZZZZZZZZZZZZZ' }, new Date());
    await handlers.frame(frame('c1', { type: 'setup', sessionId: 'VX1', callSid: 'CA1', customParameters: { token: other } }));
    expect(api.commandCalls(DeleteConnectionCommand, { ConnectionId: 'c1' })).toHaveLength(1);
    expect(session()).toMatchObject({ revision: 0, state: null });
  });

  it('runs a prompt: the turn is posted, the reply streams phrase by phrase with PostToConnection, and the state is written under its revision', async () => {
    await connected('c1');
    setModel(async function* () {
      yield { type: 'text', delta: 'Sure, ' };
      yield { type: 'text', delta: 'I can help.' };
      yield { type: 'finish', model: 'm1', usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 0 } };
    });
    await handlers.frame(frame('c1', 'not json'));
    await handlers.frame(frame('c1', { type: 'prompt', voicePrompt: 'Can you help?', last: true }));
    expect(sentTexts('c1')).toEqual([
      { type: 'text', token: 'Sure, ', last: false },
      { type: 'text', token: 'I can help.', last: false },
      { type: 'text', token: '', last: true },
    ]);
    expect(posted.flatMap((p) => p.events.map((e) => e.type))).toEqual(['turn']);
    expect(posted[0]!.url).toBe(`https://api.example.test/runtime/v1/calls/${callId}/events`);
    expect(session()).toMatchObject({ generation: 1, revision: 5 });
  });

  it('an interrupt handled by another invocation bumps the generation; the streaming invocation stops and sends nothing more', async () => {
    await connected('c1');
    let aborted: AbortSignal | undefined;
    let interrupted = false;
    setModel(async function* (req) {
      aborted = req.signal;
      yield { type: 'text', delta: 'Let me explain. ' };
      // Another $default invocation: the caller talks over the reply.
      await handlers.frame(frame('c1', { type: 'interrupt', utteranceUntilInterrupt: 'Let me', durationUntilInterruptMs: 400 }));
      interrupted = true;
      yield { type: 'text', delta: 'This part is stale. ' };
      yield { type: 'finish', model: 'm1', usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 0 } };
    });
    await handlers.frame(frame('c1', { type: 'prompt', voicePrompt: 'Explain', last: true }));
    expect(interrupted).toBe(true);
    expect(sentTexts('c1').map((m) => m.token)).toEqual(['Let me explain. ']);
    expect(aborted?.aborted).toBe(true);
    expect(session()).toMatchObject({ generation: 2 });
  });
});

describe('$disconnect', () => {
  it('closes the session through the core (its hangup posted) and deletes the session and the connection pointer', async () => {
    expect(await handlers.connect(connectEvent('c1', { token }))).toEqual({ statusCode: 200 });
    await handlers.disconnect({ requestContext: ctx('c1', '$disconnect'), isBase64Encoded: false } as APIGatewayProxyWebsocketEventV2);
    expect(posted.flatMap((p) => p.events.map((e) => e.type))).toEqual(['hangup']);
    expect(session()).toBeUndefined();
    expect(table.has('PLATFORM#RELAY_CONNECTION#c1|RELAY_CONNECTION')).toBe(false);
    // A reconnect (the two-hour limit, a fresh TwiML) opens a new session.
    expect(await handlers.connect(connectEvent('c2', { token }))).toEqual({ statusCode: 200 });
  });
});
