/**
 * The voice runtime's ControlPlane against the real local stack: the brief read from the
 * stores, events posted through POST /runtime/v1/calls/{id}/events with the call's token.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { db, tableName } from '../../shared/db/client.js';
import { callPartition } from '../../shared/db/keys.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { verifyStreamToken } from '../../shared/telephony/call-tokens.js';
import { backoffMs, createControlPlane } from '../../shared/voice/control-plane.js';
import { ControlPlaneError } from '../../shared/voice/ports.js';
import { agentNumberWorld } from '../e2e/inbound-fixtures.js';
import { useTestStack } from '../support/stack.js';

const stack = useTestStack({ workers: false });
const at = new Date(Date.UTC(2026, 10, 24, 12)).toISOString();
let n = 0;
const turn = (text: string) => ({ id: `cp-${Date.now().toString(36)}-${++n}`, type: 'turn' as const, at, speaker: 'contact' as const, text });

async function answeredCall() {
  const world = await agentNumberWorld(stack);
  const rung = await world.ring();
  const token = rung.token!;
  const check = verifyStreamToken(await callTokenKey(), token, new Date());
  if (!check.ok) throw new Error('ring gave no valid token');
  return { world, token, claims: check.claims, callId: rung.call.id };
}

async function eventIds(tenantId: string, callId: string): Promise<string[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)',
      ExpressionAttributeValues: { ':pk': callPartition(tenantId, callId), ':e': 'EVENT#' },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => String(i.sk).slice('EVENT#'.length)).sort();
}

describe('loadCall', () => {
  it('reads the pinned version, its template and the call; null for a token naming another tenant or version', async () => {
    const { token, claims, world } = await answeredCall();
    const brief = await createControlPlane({ token }).loadCall(claims);
    expect(brief).toMatchObject({ direction: 'inbound', use_case: 'sdr', outcome_type: 'appointment', questions: [], context: {}, transfer_targets: [] });
    expect(brief!.objectives.length).toBeGreaterThan(0);
    expect(brief!.definition.disclosure_config).toMatchObject({ business_name: 'Acme Solar' });
    expect(brief!.definition.llm_route.primary).toEqual(expect.any(String));

    const other = await agentNumberWorld(stack);
    expect(await createControlPlane({ token }).loadCall({ ...claims, tenant_id: other.tenantId })).toBeNull();
    expect(
      await createControlPlane({ token }).loadCall({ ...claims, agent_version_id: world.agent.versionId.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) }),
    ).toBeNull();
    expect(await createControlPlane({ token }).loadCall({ ...claims, call_id: 'cal_01JZZZZZZZZZZZZZZZZZZZZZZZ' })).toBeNull();
  });

  it('keeps the pinned version and its template by the version id: the next session of that version reads only its call', async () => {
    const { token, claims } = await answeredCall();
    const first = await createControlPlane({ token }).loadCall(claims);
    const send = vi.spyOn(db(), 'send');
    try {
      const again = await createControlPlane({ token }).loadCall(claims);
      expect(again).toEqual(first);
      const keys = send.mock.calls.map(([command]) => (command.input as { Key?: Record<string, unknown> }).Key);
      expect(keys).toEqual([{ pk: callPartition(claims.tenant_id, claims.call_id), sk: 'CALL' }]);
    } finally {
      send.mockRestore();
    }
  });
});

describe('postEvents', () => {
  it('batches by 25 in order; the same events posted twice are stored once', async () => {
    const { token, claims, callId } = await answeredCall();
    const cp = createControlPlane({ token });
    await cp.loadCall(claims);
    const events = Array.from({ length: 30 }, (_, i) => turn(`line ${i}`));
    const bodies: number[] = [];
    const counting = createControlPlane({
      token,
      fetch: async (input, init) => {
        bodies.push((JSON.parse(String(init?.body)) as { events: unknown[] }).events.length);
        return fetch(input, init);
      },
    });
    await counting.loadCall(claims);
    await counting.postEvents(events);
    await cp.postEvents(events);
    expect(bodies).toEqual([25, 5]);
    expect(await eventIds(claims.tenant_id, callId)).toEqual(events.map((e) => e.id).sort());
  });

  it('retries a 5xx with the same ids and stores the batch once', async () => {
    const { token, claims, callId } = await answeredCall();
    let calls = 0;
    const sleeps: number[] = [];
    const cp = createControlPlane({
      token,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.5,
      // The first attempt reaches the route (and commits), then answers as a gateway failing would.
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        return ++calls === 1 ? new Response('{"message":"Internal Server Error"}', { status: 502 }) : res;
      },
    });
    await cp.loadCall(claims);
    const events = [turn('hello'), turn('again')];
    await cp.postEvents(events);
    expect(calls).toBe(2);
    expect(sleeps).toEqual([50]);
    expect(await eventIds(claims.tenant_id, callId)).toEqual(events.map((e) => e.id).sort());
  });

  it('a 4xx is a ControlPlaneError, not retried', async () => {
    const { token, claims } = await answeredCall();
    let calls = 0;
    const cp = createControlPlane({ token, sleep: async () => {}, fetch: async (i, init) => (calls++, fetch(i, init)) });
    await cp.loadCall(claims);
    const bad = [{ ...turn('x'), speaker: 'nobody' }] as never;
    const err = await cp.postEvents(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlPlaneError);
    expect((err as ControlPlaneError).status).toBe(422);
    expect(calls).toBe(1);
  });

  it('network errors are retried until the attempts run out', async () => {
    const { token, claims } = await answeredCall();
    let calls = 0;
    const cp = createControlPlane({
      token,
      attempts: 3,
      sleep: async () => {},
      fetch: async () => {
        calls++;
        throw new TypeError('fetch failed');
      },
    });
    await cp.loadCall(claims);
    const err = await cp.postEvents([turn('x')]).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ControlPlaneError', code: 'network_error' });
    expect(calls).toBe(3);
  });
});

describe('checkCalendar', () => {
  it('posts to the runtime availability route with the token (409 without a calendar)', async () => {
    const { token, claims } = await answeredCall();
    const cp = createControlPlane({ token });
    await cp.loadCall(claims);
    const err = await cp.checkCalendar({ start_date: '2026-12-01', end_date: '2026-12-02', duration_minutes: 30 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 409, code: 'calendar_not_connected' });
  });
});

describe('backoffMs', () => {
  it('is a random share of a doubling ceiling, capped', () => {
    expect([1, 2, 3, 10].map((r) => backoffMs(r, 100, 2000, () => 0.999))).toEqual([99, 199, 399, 1998]);
    expect(backoffMs(3, 100, 2000, () => 0)).toBe(0);
  });
});
