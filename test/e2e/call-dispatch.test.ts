/**
 * Queue → dispatch on the running local stack: the SQS pollers run the call-dispatch worker
 * and the scheduler ticks (SCHEDULER_TICK_MS) as EventBridge does on AWS. An allowed call is
 * dialled once through the sandbox carrier even with duplicate messages in the queue; a
 * deferred call is dialled when the clock passes its scheduled_for and the scheduler ticks.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendDispatch } from '../../shared/calls/dispatch-queue.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import {
  ALLOWED_AT,
  type CallWorld,
  callWorld,
  eventsOfCall,
  newContact,
  QUIET_AT,
  queue,
  resetClock,
  sandboxCallsFrom,
  setClock,
  storedCall,
} from './call-fixtures.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: true, schedulerTickMs: 200 });

let w: CallWorld;
beforeAll(async () => {
  const t = await newTenant('Dispatch');
  w = await callWorld(client(stack, t.token), t.tenantId);
});
afterEach(() => resetClock());

const dialledTo = async (to: string) => (await sandboxCallsFrom(w.number.phone_e164)).filter((x) => x.to === to);
const count = (types: string[], type: string) => types.filter((t) => t === type).length;

describe('dispatch on the local stack', () => {
  it('an allowed call is dialled by the worker exactly once, duplicate messages and all', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const a = (await queue(w.api, { agent_id: w.agentId, contact_id: c.id })).body;
    // Two more messages for the same call: a duplicate send and a redelivery.
    await Promise.all([
      sendDispatch({ tenant_id: w.tenantId, attempt_id: a.id, call_id: a.call_id }),
      sendDispatch({ tenant_id: w.tenantId, attempt_id: a.id, call_id: a.call_id }),
    ]);
    const call = await waitFor(
      async () => {
        const x = await storedCall(w.tenantId, a.call_id);
        return x.provider_call_sid ? x : undefined;
      },
      { message: 'the call dialled', timeoutMs: 20_000 },
    );
    expect(call.dialing_at).toEqual(expect.any(String));
    // Later messages find it no longer scheduled.
    await sendDispatch({ tenant_id: w.tenantId, attempt_id: a.id, call_id: a.call_id });
    await waitFor(async () => (await eventsOfCall(w.tenantId, a.call_id)).length >= 3, { message: 'the dialing event' });
    const dialled = await dialledTo(c.phone_e164);
    expect(dialled).toHaveLength(1);
    expect(dialled[0]!.sid).toBe(call.provider_call_sid);
    const types = (await eventsOfCall(w.tenantId, a.call_id)).map((e) => e.type);
    expect(count(types, 'call.queued')).toBe(1);
    expect(count(types, 'call.scheduled')).toBe(1);
    expect(count(types, 'call.dialing')).toBe(1);
  });

  it('queued through the API, dialled, answered, talked, ended and scored: the whole path for an answering test number and a busy one', {
    timeout: 90_000,
  }, async () => {
    setClock(ALLOWED_AT);
    const goal = await newContact(w.api, '+12125550101');
    const busy = await newContact(w.api, '+12125550120');
    const [g, b] = await Promise.all([goal, busy].map(async (c) => (await queue(w.api, { agent_id: w.agentId, contact_id: c.id })).body));
    const detail = async (id: string) => (await w.api('GET', `/v1/calls/${id}`)).body;
    const scored = (id: string) =>
      waitFor(
        async () => {
          const d = await detail(id);
          return d.analysis ? d : undefined;
        },
        { message: `call ${id} scored`, timeoutMs: 60_000 },
      );
    const [gd, bd] = await Promise.all([scored(g!.call_id), scored(b!.call_id)]);
    expect(gd).toMatchObject({ direction: 'outbound', state: 'completed', disposition: 'completed_goal', attempt_id: g!.id });
    expect(gd.analysis.success_evaluation.dimensions.disclosure_given.result).not.toBe('unscored');
    expect(bd).toMatchObject({ state: 'busy', disposition: 'busy', disposition_set_by: 'carrier' });
    expect(bd.analysis.success_evaluation.verdict).toBe('not_applicable');
    for (const id of [g!.call_id, b!.call_id]) {
      const types = (await eventsOfCall(w.tenantId, id)).map((e) => e.type);
      expect(count(types, 'call.completed'), id).toBe(1);
      expect(count(types, 'call.dialing'), id).toBe(1);
      expect(count(types, 'call.analysis_ready'), id).toBe(1);
    }
    expect(
      count(
        (await eventsOfCall(w.tenantId, g!.call_id)).map((e) => e.type),
        'call.answered',
      ),
    ).toBe(1);
    expect(await dialledTo(goal.phone_e164)).toHaveLength(1);
  });

  it('a call deferred by quiet hours is dialled once the clock passes its time and the scheduler ticks', async () => {
    setClock(QUIET_AT);
    const c = await newContact(w.api);
    const a = (await queue(w.api, { agent_id: w.agentId, contact_id: c.id })).body;
    expect(a.compliance.outcome).toBe('defer');
    const due = Date.parse(a.scheduled_for);
    // Hours away: the scheduler ticks and nothing happens.
    setClock(due - 60_000);
    const ticked = stack.schedulerTicks();
    await waitFor(() => stack.schedulerTicks() >= ticked + 2, { message: 'two scheduler ticks before its time' });
    expect((await storedCall(w.tenantId, a.call_id)).state).toBe('scheduled');
    expect(await dialledTo(c.phone_e164)).toEqual([]);
    // Past it: the scheduler sends it, the worker judges it allowed now and dials.
    setClock(due + 1_000);
    const call = await waitFor(
      async () => {
        const x = await storedCall(w.tenantId, a.call_id);
        return x.provider_call_sid ? x : undefined;
      },
      { message: 'the deferred call dialled', timeoutMs: 20_000 },
    );
    expect(Date.parse(call.dialing_at!)).toBeGreaterThanOrEqual(due);
    expect(await dialledTo(c.phone_e164)).toHaveLength(1);
    const types = (await eventsOfCall(w.tenantId, a.call_id)).map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(['call.queued', 'call.scheduled', 'call.dialing']);
  });
});
