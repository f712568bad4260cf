/**
 * The AWS voice runtime host's Lambda handlers ($connect, $default, $disconnect) with
 * DynamoDB and the API Gateway Management API mocked (aws-sdk-client-mock): the table is a
 * small in-memory map honouring the conditions the relay store writes under, and the control
 * plane's HTTP posts are captured (fetch is mocked; the call's brief is handed to loadCall
 * rather than seeded as agent versions and templates). The conversation core, the tools and
 * the system prompt are the real ones; the model is scripted and calls the tools as the AI SDK
 * would.
 */
import { randomBytes } from 'node:crypto';
import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GetConnectionCommand,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VerifiedStreamClaims } from '../../shared/telephony/call-tokens.js';
import { LINES } from '../../shared/voice/phrases.js';
import type { CallBrief, ReplyPart, ReplyRequest } from '../../shared/voice/ports.js';
import { conditionFailed, ddb, memoryTable } from '../support/document-client-mock.js';

// The model the handlers stream with, passed through relayHostDeps' model argument.
const model = vi.hoisted(() => ({
  stream: async function* () {} as (req: import('../../shared/voice/ports.js').ReplyRequest) => AsyncIterable<import('../../shared/voice/ports.js').ReplyPart>,
}));
vi.mock('../../shared/voice/relay-aws.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../shared/voice/relay-aws.js')>();
  return { ...mod, relayHostDeps: (endpoint: string) => mod.relayHostDeps(endpoint, { stream: (req) => model.stream(req) }) };
});
// The brief loadCall returns (the stores' agent version and template are not seeded); posts still go through fetch.
const call = vi.hoisted(() => ({
  brief: (claims: import('../../shared/telephony/call-tokens.js').VerifiedStreamClaims): import('../../shared/voice/ports.js').CallBrief | null =>
    claims ? null : null,
}));
vi.mock('../../shared/voice/control-plane.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../shared/voice/control-plane.js')>();
  return {
    ...mod,
    createControlPlane: (opts: Parameters<typeof mod.createControlPlane>[0]) => ({
      ...mod.createControlPlane(opts),
      loadCall: async (claims: VerifiedStreamClaims) => call.brief(claims),
    }),
  };
});

/* ---- the table ---- */

const table = memoryTable();
const api = mockClient(ApiGatewayManagementApiClient);
function installTable() {
  table.reset();
  // A session save, the relay store's one Update: only at the revision read, by the owning connection.
  ddb.on(UpdateCommand).callsFake(async (input) => {
    const item = table.get(input.Key);
    const v = input.ExpressionAttributeValues;
    if (!item || item.revision !== v[':rev'] || item.connection_id !== v[':conn']) throw conditionFailed();
    table.put({ ...item, state: v[':state'], generation: v[':gen'], revision: v[':next'], ...(':ctx' in v ? { reply_context: v[':ctx'] } : {}) });
    return {};
  });
}

/* ---- the control plane's HTTP side ---- */

const posted: { url: string; events: { id: string; type: string }[] }[] = [];
/** Set by a test: how the control plane answers instead of storing. */
let respond: (() => Promise<Response>) | undefined;
const realFetch = globalThis.fetch;

const secrets = { api_key_pepper: 'p'.repeat(40), cursor_key: randomBytes(32).toString('hex') };
const tenantId = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const callId = 'cal_01JBBBBBBBBBBBBBBBBBBBBBBB';
const versionId = 'agv_01JCCCCCCCCCCCCCCCCCCCCCCC';
let token: string;
let claims: VerifiedStreamClaims;

const briefFor = (c: VerifiedStreamClaims): CallBrief => ({
  claims: c,
  direction: 'inbound',
  use_case: 'customer_support',
  outcome_type: 'none',
  objectives: [{ id: 'help', description: 'Help the caller', required: true }],
  definition: {
    tools: ['end_call'],
    llm_route: { primary: 'sandbox-default', fallbacks: [] },
    disclosure_config: { business_name: 'Acme' },
    conversation_settings: { default_language: 'en-US' },
  },
  questions: [],
  context: {},
  transfer_targets: [],
});

const ctx = (connectionId: string, routeKey: string) =>
  ({
    connectionId,
    routeKey,
    domainName: 'abc.execute-api.us-east-1.amazonaws.com',
    stage: 'live',
    eventType: 'MESSAGE',
    messageDirection: 'IN',
  }) as unknown as APIGatewayProxyWebsocketEventV2['requestContext'];
const connectEvent = (connectionId: string, query: Record<string, string>) =>
  ({ requestContext: ctx(connectionId, '$connect'), queryStringParameters: query, headers: {}, isBase64Encoded: false }) as APIGatewayProxyWebsocketEventV2;
const frame = (connectionId: string, body: unknown) =>
  ({
    requestContext: ctx(connectionId, '$default'),
    body: typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded: false,
  }) as APIGatewayProxyWebsocketEventV2;
const sentTexts = (connectionId: string) =>
  api
    .commandCalls(PostToConnectionCommand, { ConnectionId: connectionId })
    .map((c) => JSON.parse(Buffer.from(c.args[0].input.Data as Uint8Array).toString('utf8')) as { type: string; token: string; last: boolean });
const session = () => table.get({ pk: `TENANT#${tenantId}#CALL#${callId}`, sk: 'RELAY_SESSION' });

let handlers: {
  connect: typeof import('../../functions/relay/connect.js').handler;
  frame: typeof import('../../functions/relay/default.js').handler;
  disconnect: typeof import('../../functions/relay/disconnect.js').handler;
};
let setModel: (m: (req: ReplyRequest) => AsyncIterable<ReplyPart>) => void;

beforeAll(async () => {
  vi.stubEnv('TABLE_NAME', 'relay-unit');
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'x');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'x');
  vi.stubEnv('APP_SECRETS_JSON', JSON.stringify(secrets));
  vi.stubEnv('PUBLIC_BASE_URL', 'https://api.example.test');
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    if (respond) return respond();
    posted.push({ url, events: (JSON.parse(String(init.body)) as { events: { id: string; type: string }[] }).events });
    return new Response(JSON.stringify({ results: [] }), { status: 200 });
  });
  const { callTokenKey } = await import('../../shared/telephony/call-token-key.js');
  const { mintStreamToken, verifyStreamToken } = await import('../../shared/telephony/call-tokens.js');
  token = mintStreamToken(
    await callTokenKey(),
    { tenant_id: tenantId, call_id: callId, agent_version_id: versionId, number_id: 'num_01JDDDDDDDDDDDDDDDDDDDDDDD' },
    new Date(),
  );
  const checked = verifyStreamToken(await callTokenKey(), token, new Date());
  if (!checked.ok) throw new Error('token');
  claims = checked.claims;
  setModel = (m) => {
    model.stream = m;
  };
  call.brief = (c) => (c.call_id === callId ? briefFor(c) : null);
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
  posted.length = 0;
  respond = undefined;
  installTable();
  api.reset();
  api.on(PostToConnectionCommand).resolves({});
  api.on(DeleteConnectionCommand).resolves({});
  // The call the token names, as the calls store keeps it (a mock-carrier account).
  table.put({
    pk: `TENANT#${tenantId}#CALL#${callId}`,
    sk: 'CALL',
    id: callId,
    tenant_id: tenantId,
    direction: 'inbound',
    telephony_account_id: 'tac_01JEEEEEEEEEEEEEEEEEEEEEEE',
    inbound: { agent_version_id: versionId },
  });
});

describe('$connect', () => {
  it('no token → 401, a bad or expired token → 403, and nothing is written', async () => {
    const { mintStreamToken } = await import('../../shared/telephony/call-tokens.js');
    expect(await handlers.connect(connectEvent('c0', {}))).toEqual({ statusCode: 401 });
    expect(await handlers.connect(connectEvent('c0', { token: `${token.slice(0, -3)}abc` }))).toEqual({ statusCode: 403 });
    expect(await handlers.connect(connectEvent('c0', { token: mintStreamToken(randomBytes(32), claims, new Date()) }))).toEqual({ statusCode: 403 });
    const { callTokenKey } = await import('../../shared/telephony/call-token-key.js');
    expect(await handlers.connect(connectEvent('c0', { token: mintStreamToken(await callTokenKey(), claims, new Date(Date.now() - 7_200_000), 60) }))).toEqual({
      statusCode: 403,
    });
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
  async function connected(connectionId: string, opts: { setup?: boolean } = {}) {
    expect(await handlers.connect(connectEvent(connectionId, { token }))).toEqual({ statusCode: 200 });
    if (opts.setup === false) return;
    await handlers.frame(frame(connectionId, { type: 'setup', sessionId: 'VX1', callSid: 'CA1', customParameters: { token } }));
    posted.length = 0;
    api.resetHistory();
  }
  const postedEvents = () => posted.flatMap((p) => p.events) as unknown as Record<string, unknown>[];
  const finish = (): ReplyPart => ({ type: 'finish', model: 'm1', usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 0 } });

  it("a setup with another call's token closes the connection; nothing is stepped", async () => {
    await connected('c1', { setup: false });
    const { mintStreamToken } = await import('../../shared/telephony/call-tokens.js');
    const { callTokenKey } = await import('../../shared/telephony/call-token-key.js');
    const other = mintStreamToken(await callTokenKey(), { ...claims, call_id: 'cal_01JZZZZZZZZZZZZZZZZZZZZZZZ' }, new Date());
    await handlers.frame(frame('c1', { type: 'setup', sessionId: 'VX1', callSid: 'CA1', customParameters: { token: other } }));
    expect(api.commandCalls(DeleteConnectionCommand, { ConnectionId: 'c1' })).toHaveLength(1);
    expect(session()).toMatchObject({ revision: 0, state: null });
  });

  it('setup runs the real core: the disclosure is posted and the brief is kept with the session for later replies', async () => {
    expect(await handlers.connect(connectEvent('c1', { token }))).toEqual({ statusCode: 200 });
    await handlers.frame(frame('c1', { type: 'setup', sessionId: 'VX1', callSid: 'CA1', customParameters: { token } }));
    expect(postedEvents().map((e) => [e.id, e.type])).toEqual([
      ['VX1:0', 'disclosure'],
      ['VX1:1', 'turn'],
      ['VX1:2', 'usage'],
    ]);
    expect(session()).toMatchObject({ revision: 1, reply_context: { brief: { definition: { tools: ['end_call'] } } } });
    expect(JSON.stringify(session())).not.toContain(token);
  });

  it('runs a prompt with the compiled prompt and the granted tools: the reply is spoken, the state written under its revision', async () => {
    await connected('c1');
    let request: ReplyRequest | undefined;
    setModel(async function* (req) {
      request = req;
      yield { type: 'text', delta: 'Sure, ' };
      yield { type: 'text', delta: 'I can help.' };
      yield finish();
    });
    await handlers.frame(frame('c1', 'not json'));
    await handlers.frame(frame('c1', { type: 'prompt', voicePrompt: 'Can you help?', last: true }));
    expect(request?.system).toContain('automated voice assistant for Acme');
    expect(request?.tools.map((t) => t.name)).toEqual(['end_call']);
    expect(request?.route).toEqual({ primary: 'sandbox-default', fallbacks: [] });
    expect(request?.messages.at(-1)).toEqual({ role: 'user', content: 'Can you help?' });
    expect(sentTexts('c1')).toEqual([{ type: 'text', token: 'Sure, I can help.', last: true }]);
    expect(postedEvents().map((e) => e.type)).toEqual(['turn', 'usage']);
    expect(posted[0]!.url).toBe(`https://api.example.test/runtime/v1/calls/${callId}/events`);
    expect(session()).toMatchObject({ generation: 1 });
  });

  it("a tool the model calls runs with the call's identity: its events are posted with deterministic ids and its end request ends the call after the reply", async () => {
    await connected('c1');
    let toolOutput: unknown;
    setModel(async function* (req) {
      yield { type: 'text', delta: 'Thanks for calling, goodbye! ' };
      const endCall = req.tools.find((t) => t.name === 'end_call')!;
      yield { type: 'tool-call', toolCallId: 't1', toolName: 'end_call', input: { reason: 'completed' } };
      toolOutput = await endCall.execute({ reason: 'completed' }, { signal: req.signal });
      yield { type: 'tool-result', toolCallId: 't1', toolName: 'end_call', output: toolOutput };
      yield finish();
    });
    await handlers.frame(frame('c1', { type: 'prompt', voicePrompt: 'That is all, thanks', last: true }));
    expect(toolOutput).toEqual({ status: 'ending' });
    const action = postedEvents().find((e) => e.type === 'conversation_action');
    // `<session>:<prefix>-<n>`, numbered from the reply's reserved block (the first reply starts at 0).
    expect(action).toMatchObject({ id: 'VX1:evt-0', action_id: 'VX1:act-1', kind: 'end_call', arguments: { reason: 'completed' } });
    const frames = sentTexts('c1') as unknown as { type: string; token?: string; handoffData?: string }[];
    expect(frames.map((m) => m.type)).toEqual(['text', 'text', 'end']);
    expect(frames.at(-1)).toEqual({ type: 'end', handoffData: '{"reason":"end_call"}' });
    expect(postedEvents().map((e) => e.type)).toContain('hangup');
    const state = JSON.parse(session()!.state as string) as { ended: boolean; toolEventSeq: number };
    expect(state).toMatchObject({ ended: true, toolEventSeq: 1000 });

    // The same inputs give the same ids: a retried post is idempotent at the events route.
    const ids = postedEvents().map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a slow tool gets the filler line; a refused post reaches the model in the tool's words and the call still ends", async () => {
    process.env.VOICE_FILLER_AFTER_MS = '20';
    await connected('c1');
    let output: unknown;
    setModel(async function* (req) {
      const endCall = req.tools.find((t) => t.name === 'end_call')!;
      // The events route refuses the tool's post slowly (not retried: a 4xx is an answer).
      respond = () => new Promise((r) => setTimeout(() => r(new Response('{"code":"bad"}', { status: 409 })), 150));
      output = await endCall.execute({}, { signal: req.signal });
      respond = undefined;
      yield finish();
    });
    try {
      await handlers.frame(frame('c1', { type: 'prompt', voicePrompt: 'Bye', last: true }));
    } finally {
      delete process.env.VOICE_FILLER_AFTER_MS;
    }
    expect(output).toMatchObject({ ok: false, error: 'tool_failed', message: 'The call is ending' });
    const frames = sentTexts('c1');
    expect(frames.filter((m) => m.type === 'text' && m.token === LINES.en!.filler)).toHaveLength(1);
    expect(frames.at(-1)).toMatchObject({ type: 'end' });
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
      yield finish();
    });
    await handlers.frame(frame('c1', { type: 'prompt', voicePrompt: 'Explain', last: true }));
    expect(interrupted).toBe(true);
    expect(sentTexts('c1').map((m) => m.token)).toEqual(['Let me explain.']);
    expect(aborted?.aborted).toBe(true);
    expect(session()).toMatchObject({ generation: 2 });
    // What was heard is the agent turn posted, marked interrupted.
    expect(postedEvents().find((e) => e.type === 'turn' && e.speaker === 'agent')).toMatchObject({ text: 'Let me', interrupted: true });
  });

  it('what the tools remember carries over to the next reply (another invocation): answers given earlier complete the survey', async () => {
    const plain = call.brief;
    call.brief = (c) => ({
      ...plain(c)!,
      use_case: 'survey',
      outcome_type: 'survey_response',
      objectives: [],
      definition: { ...plain(c)!.definition, tools: ['record_survey_answer'] },
      questions: [
        { id: 'q1', prompt: 'How was the visit?' },
        { id: 'q2', prompt: 'Would you come again?' },
      ],
    });
    try {
      await connected('c1');
      const answer = (args: unknown) =>
        async function* (req: ReplyRequest): AsyncIterable<ReplyPart> {
          const output = await req.tools.find((t) => t.name === 'record_survey_answer')!.execute(args, { signal: req.signal });
          yield { type: 'tool-result', toolCallId: 't', toolName: 'record_survey_answer', output };
          yield { type: 'text', delta: 'Thank you. ' };
          yield finish();
        };
      setModel(answer({ answers: [{ question_id: 'q1', value: 'great' }] }));
      await handlers.frame(frame('c1', { type: 'prompt', voicePrompt: 'It was great', last: true }));
      setModel(answer({ answers: [{ question_id: 'q2', value: 'yes' }], complete: true }));
      await handlers.frame(frame('c1', { type: 'prompt', voicePrompt: 'Yes I would', last: true }));
      const outcome = postedEvents().find((e) => e.type === 'outcome');
      expect(outcome).toMatchObject({ outcome: { outcome_type: 'survey_response', complete: true, answers: { q1: 'great', q2: 'yes' } } });
      // The second reply's ids come from its own reserved block.
      expect(
        postedEvents()
          .filter((e) => e.type === 'recorded_response')
          .map((e) => e.id),
      ).toEqual(['VX1:evt-0', 'VX1:evt-1000']);
    } finally {
      call.brief = plain;
    }
  });

  it('a stale reply stops before its tool runs', async () => {
    await connected('c1');
    let result: unknown = 'not run';
    setModel(async function* (req) {
      yield { type: 'text', delta: 'One moment. ' };
      await handlers.frame(frame('c1', { type: 'interrupt', utteranceUntilInterrupt: 'One', durationUntilInterruptMs: 100 }));
      result = await req.tools[0]!.execute({}, { signal: req.signal }).catch((err: Error) => err.name);
      yield finish();
    });
    await handlers.frame(frame('c1', { type: 'prompt', voicePrompt: 'Hang up', last: true }));
    expect(result).toBe('Superseded');
    expect(postedEvents().some((e) => e.type === 'conversation_action')).toBe(false);
    expect(sentTexts('c1').some((m) => m.type === 'end')).toBe(false);
  });
});

describe('$disconnect', () => {
  it('closes the session through the core (its hangup posted) and deletes the session and the connection pointer', async () => {
    expect(await handlers.connect(connectEvent('c1', { token }))).toEqual({ statusCode: 200 });
    await handlers.frame(frame('c1', { type: 'setup', sessionId: 'VX1', callSid: 'CA1', customParameters: { token } }));
    posted.length = 0;
    await handlers.disconnect({ requestContext: ctx('c1', '$disconnect'), isBase64Encoded: false } as APIGatewayProxyWebsocketEventV2);
    expect(posted.flatMap((p) => p.events.map((e) => e.type))).toContain('hangup');
    expect(session()).toBeUndefined();
    expect(table.get({ pk: 'PLATFORM#RELAY_CONNECTION#c1', sk: 'RELAY_CONNECTION' })).toBeUndefined();
    // A reconnect (the two-hour limit, a fresh TwiML) opens a new session.
    expect(await handlers.connect(connectEvent('c2', { token }))).toEqual({ statusCode: 200 });
  });
});
