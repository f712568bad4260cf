/**
 * What the carrier or the queue lost, the scheduler finds (the design), on the local
 * stack with its pollers and scheduler ticks, time moved with the clock hook (no waiting
 * hours):
 *  - a call whose final status callback never arrived is closed by the unfinished-call
 *    reconciler with what the carrier says (busy; completed after a conversation), or as
 *    `carrier_unreported` when the carrier knows no such call, or still says it is live past
 *    the hard bound (then it is hung up first);
 *  - a call whose analysis request was lost is analysed after the re-send bound.
 * The losses are real: this stack's status-callback route drops the callbacks for chosen
 * numbers (as if they never arrived), and its analysis worker swallows chosen tenants'
 * messages (as if the message were lost).
 */

import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlerLoader } from '../../infra/local/handlers.js';
import type { SqsHandler } from '../../infra/local/pollers.js';
import type { HttpHandler } from '../../infra/local/server.js';
import { DEFAULT_ANALYSIS_RESEND_AFTER_MS } from '../../shared/calls/analysis-resend.js';
import { unfinishedBounds } from '../../shared/calls/unfinished-calls.js';
import { advanceClockForTests } from '../../shared/clock.js';
import { db, tableName } from '../../shared/db/client.js';
import { dispatchKeys, platformKeys } from '../../shared/db/keys.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import {
  ALLOWED_AT,
  type CallWorld,
  callWorld,
  eventsOfCall,
  newContact,
  queue,
  resetClock,
  sandboxCallsFrom,
  setClock,
  storedCall,
  typesOf,
} from './call-fixtures.js';
import { client, newTenant } from './client.js';

process.env.SANDBOX_STEP_MS = '100';
process.env.ANALYSIS_DELAY_SECONDS = '0';

// The sandbox carrier's bounds (its longest call at this step length, plus slack).
const { askAfterMs: DEFAULT_CALL_UNFINISHED_AFTER_MS, giveUpAfterMs: DEFAULT_CALL_UNFINISHED_GIVE_UP_MS } = unfinishedBounds('mock');

/** Status callbacks about calls to these numbers never reach us. */
const lostTo = new Set<string>();
/** Analysis requests of these tenants are lost (consumed, never processed). */
const lostAnalysisOf = new Set<string>();
const droppedAnalysis: string[] = [];

const real = { http: createHandlerLoader<HttpHandler>(), sqs: createHandlerLoader<SqsHandler>() };
const bodyOf = (event: APIGatewayProxyEventV2) => (event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? ''));

const lossyStatus: HttpHandler = async (event, context) => {
  if (lostTo.has(new URLSearchParams(bodyOf(event)).get('To') ?? ''))
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' };
  return (await real.http.load('carrierCallStatus', 'functions/carrier/call-status'))(event, context);
};
const lossyAnalysis: SqsHandler = async (event: SQSEvent, context) => {
  const kept = event.Records.filter((r) => {
    const m = JSON.parse(r.body) as { tenant_id: string; call_id: string };
    if (!lostAnalysisOf.has(m.tenant_id)) return true;
    droppedAnalysis.push(m.call_id);
    return false;
  });
  if (kept.length === 0) return { batchItemFailures: [] };
  return (await real.sqs.load('callAnalysisWorker', 'functions/workers/call-analysis'))({ ...event, Records: kept }, context);
};

const stack = useTestStack({
  workers: true,
  schedulerTickMs: 200,
  routeHandlers: { carrierCallStatus: lossyStatus },
  workerHandlers: { callAnalysis: lossyAnalysis },
});

afterEach(() => resetClock());

const world = async (name: string): Promise<CallWorld> => {
  const t = await newTenant(name);
  return callWorld(client(stack, t.token), t.tenantId);
};

/** The watch items of a call (its shard partition, filtered). */
const watchesOf = async (kind: 'unfinished' | 'analysis', tenantId: string, callId: string) =>
  (
    await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'call_id = :c',
        ExpressionAttributeValues: { ':pk': dispatchKeys[kind]('x', tenantId, callId).pk, ':c': callId },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

/**
 * The sandbox carrier's record of the call to `to`, once it satisfies `done`. A whole sandbox
 * conversation plays first: seconds alone, more than 30 s with other files running on a loaded machine.
 */
const carrierCallTo = (w: CallWorld, to: string, done: (c: Record<string, any>) => boolean) =>
  waitFor(async () => (await sandboxCallsFrom(w.number.phone_e164)).find((c) => c.to === to && done(c)), {
    timeoutMs: 60_000,
    message: `the carrier's call to ${to}`,
  });

const twoTicks = async () => {
  const t0 = stack.schedulerTicks();
  await waitFor(() => stack.schedulerTicks() >= t0 + 2, { message: 'two scheduler ticks' });
};

/** Waits until the call is scored; returns its detail. */
const scored = (w: CallWorld, id: string) =>
  waitFor(
    async () => {
      const d = (await w.api('GET', `/v1/calls/${id}`)).body;
      return d.analysis ? d : undefined;
    },
    { timeoutMs: 30_000, message: `call ${id} scored` },
  );

/** Dials `to` through POST /v1/calls with its status callbacks lost; returns the call once the carrier is done with it. */
async function unreportedCall(w: CallWorld, to: string, carrierDone: (c: Record<string, any>) => boolean) {
  setClock(ALLOWED_AT);
  lostTo.add(to);
  const c = await newContact(w.api, to);
  const a = (await queue(w.api, { agent_id: w.agentId, contact_id: c.id })).body;
  const carrier = await carrierCallTo(w, to, carrierDone);
  const call = await storedCall(w.tenantId, a.call_id);
  expect(call.provider_call_sid).toBe(carrier.sid);
  expect(call.unfinished_watch_at).toEqual(expect.any(String));
  expect(await watchesOf('unfinished', w.tenantId, a.call_id)).toHaveLength(1);
  return { id: a.call_id as string, sid: carrier.sid as string, carrier };
}

const ended = (w: CallWorld, id: string) =>
  waitFor(
    async () => {
      const x = await storedCall(w.tenantId, id);
      return ['completed', 'busy', 'failed', 'no_answer', 'machine', 'disposed'].includes(x.state) ? x : undefined;
    },
    { timeoutMs: 20_000, message: `call ${id} ended` },
  );

describe('calls the carrier never reported the end of', () => {
  it('busy, the final callback lost: left alone before the bound, then closed with the carrier’s own busy — one final event, scored, watches gone', async () => {
    const w = await world('Unfinished busy');
    const to = '+12125550120';
    const { id } = await unreportedCall(w, to, (c) => c.status === 'busy');
    await twoTicks();
    expect((await storedCall(w.tenantId, id)).state).toBe('dialing');

    advanceClockForTests(DEFAULT_CALL_UNFINISHED_AFTER_MS + 60_000);
    const call = await ended(w, id);
    expect(call).toMatchObject({
      state: 'busy',
      disposition: 'busy',
      disposition_set_by: 'carrier',
      end_reason: 'carrier_busy',
      unfinished_watch_at: null,
      duration_seconds: 0,
    });
    const detail = await scored(w, id);
    expect(detail.analysis.success_evaluation.verdict).toBe('not_applicable');
    expect(typesOf(await eventsOfCall(w.tenantId, id))).toEqual(['call.queued', 'call.scheduled', 'call.dialing', 'call.completed', 'call.analysis_ready']);
    expect(await watchesOf('unfinished', w.tenantId, id)).toEqual([]);
    await waitFor(async () => (await watchesOf('analysis', w.tenantId, id)).length === 0, { message: 'the analysis watch deleted' });
  });

  it('a conversation whose completed callback was lost: completed with the carrier’s duration and the disposition the runtime earned', async () => {
    const w = await world('Unfinished answered');
    const to = '+17185550100';
    const { id } = await unreportedCall(w, to, (c) => c.status === 'completed' && (c.relay?.sessions.length ?? 0) > 0);
    expect((await storedCall(w.tenantId, id)).state).toBe('in_conversation');

    advanceClockForTests(DEFAULT_CALL_UNFINISHED_AFTER_MS + 60_000);
    const call = await ended(w, id);
    expect(call).toMatchObject({
      state: 'completed',
      disposition: 'completed_goal',
      disposition_set_by: 'agent_llm',
      end_reason: 'carrier_completed',
      duration_seconds: 95,
    });
    const detail = await scored(w, id);
    expect(detail.analysis.success_evaluation.dimensions.goal_completion.result).toBe('pass');
    expect(typesOf(await eventsOfCall(w.tenantId, id))).toEqual([
      'call.queued',
      'call.scheduled',
      'call.dialing',
      'call.answered',
      'call.completed',
      'call.analysis_ready',
    ]);
    expect(await watchesOf('unfinished', w.tenantId, id)).toEqual([]);
  });

  it('the carrier knows no such call: failed as carrier_unreported, set by system', async () => {
    const w = await world('Unfinished unknown');
    const to = '+19175550120';
    const { id, sid } = await unreportedCall(w, to, (c) => c.status === 'busy');
    await db().send(new DeleteCommand({ TableName: tableName(), Key: platformKeys.sandboxCall(sid) }));

    advanceClockForTests(DEFAULT_CALL_UNFINISHED_AFTER_MS + 60_000);
    const call = await ended(w, id);
    expect(call).toMatchObject({
      state: 'failed',
      disposition: 'failed',
      disposition_set_by: 'system',
      end_reason: 'carrier_unreported',
      ended_at: expect.any(String),
    });
    await scored(w, id);
    const events = await eventsOfCall(w.tenantId, id);
    expect(typesOf(events)).toEqual(['call.queued', 'call.scheduled', 'call.dialing', 'call.completed', 'call.analysis_ready']);
    expect(events[3]!.data).toMatchObject({ state: 'failed', end_reason: 'carrier_unreported', attempt_id: call.attempt_id, contact_id: call.contact_id });
  });

  it('the carrier still says live: asked again after the bound, then past the hard bound hung up and closed (completed, carrier_unreported)', async () => {
    const w = await world('Unfinished live');
    const to = '+16465550100';
    const { id, sid } = await unreportedCall(w, to, (c) => c.status === 'completed' && (c.relay?.sessions.length ?? 0) > 0);
    // The carrier now claims the call is still up.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxCall(sid),
        UpdateExpression: 'SET #s = :live, end_time = :null',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':live': 'in-progress', ':null': null },
      }),
    );
    const linkedAt = (await storedCall(w.tenantId, id)).unfinished_watch_at!;

    advanceClockForTests(DEFAULT_CALL_UNFINISHED_AFTER_MS + 60_000);
    const rearmed = await waitFor(
      async () => {
        const x = await storedCall(w.tenantId, id);
        return x.unfinished_watch_at && x.unfinished_watch_at !== linkedAt ? x : undefined;
      },
      { message: 'the watch re-armed' },
    );
    expect(rearmed.state).toBe('in_conversation');
    const watches = await watchesOf('unfinished', w.tenantId, id);
    expect(watches).toHaveLength(1);
    expect(watches[0]).toMatchObject({ since: rearmed.unfinished_watch_at, linked_at: linkedAt });

    advanceClockForTests(DEFAULT_CALL_UNFINISHED_GIVE_UP_MS - DEFAULT_CALL_UNFINISHED_AFTER_MS);
    const call = await ended(w, id);
    expect(call).toMatchObject({ state: 'completed', disposition: 'completed_goal', disposition_set_by: 'agent_llm', end_reason: 'carrier_unreported' });
    // It was hung up at the carrier before being closed.
    await carrierCallTo(w, to, (c) => c.sid === sid && c.status === 'completed' && c.end_time !== null);
    await scored(w, id);
    const types = typesOf(await eventsOfCall(w.tenantId, id));
    expect(types).toEqual(['call.queued', 'call.scheduled', 'call.dialing', 'call.answered', 'call.completed', 'call.analysis_ready']);
    expect(await watchesOf('unfinished', w.tenantId, id)).toEqual([]);
  });
});

describe('lost analysis requests', () => {
  it('a call that ended but whose analysis request was lost is analysed once the re-send bound passes', async () => {
    const w = await world('Lost analysis');
    lostAnalysisOf.add(w.tenantId);
    setClock(ALLOWED_AT);
    const c = await newContact(w.api, '+13475550120');
    const a = (await queue(w.api, { agent_id: w.agentId, contact_id: c.id })).body;
    const call = await ended(w, a.call_id);
    expect(call).toMatchObject({ state: 'busy', analysis_watch_at: expect.any(String) });
    await waitFor(() => droppedAnalysis.includes(a.call_id), { message: 'the analysis request lost' });
    expect(await watchesOf('analysis', w.tenantId, a.call_id)).toHaveLength(1);
    // Before the bound nothing is re-sent.
    await twoTicks();
    expect((await storedCall(w.tenantId, a.call_id)).analysis).toBeUndefined();
    expect(droppedAnalysis.filter((x) => x === a.call_id)).toHaveLength(1);

    lostAnalysisOf.delete(w.tenantId);
    advanceClockForTests(DEFAULT_ANALYSIS_RESEND_AFTER_MS + 60_000);
    const detail = await scored(w, a.call_id);
    expect(detail.analysis.success_evaluation.verdict).toBe('not_applicable');
    await waitFor(async () => (await watchesOf('analysis', w.tenantId, a.call_id)).length === 0, { message: 'the analysis watch deleted' });
    expect((await storedCall(w.tenantId, a.call_id)).analysis_watch_at).toBeNull();
    const types = typesOf(await eventsOfCall(w.tenantId, a.call_id));
    expect(types.filter((t) => t === 'call.analysis_ready')).toHaveLength(1);
    expect(types.at(-1)).toBe('call.analysis_ready');
  });
});
