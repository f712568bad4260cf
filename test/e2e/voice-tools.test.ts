/**
 * The voice runtime's tools against the real runtime routes (local stack, DynamoDB Local):
 * what each tool reports is taken by POST /runtime/v1/calls/{id}/events with the call's Stream
 * token and becomes what the call detail, handoffs and qualification reviews show — the same
 * as when the sandbox runtime reports the same tool.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { now } from '../../shared/clock.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import { type CallBrief, type ControlPlane, ControlPlaneError } from '../../shared/voice/ports.js';
import type { HandoffData } from '../../shared/voice/protocol.js';
import { grantedTools } from '../../shared/voice/tools.js';
import { useTestStack } from '../support/stack.js';
import { resetClock, setClock } from './call-fixtures.js';
import { client } from './client.js';
import { agentNumberWorld } from './inbound-fixtures.js';

const stack = useTestStack({ workers: false });
afterEach(resetClock);

/** The control plane as a runtime host reaches it: the call's runtime routes, with its Stream token. */
function httpControlPlane(token: string, callId: string): ControlPlane {
  const runtime = client(stack, token);
  const refused = (res: { status: number; body: { code?: string } | undefined }) => new ControlPlaneError(`HTTP ${res.status}`, res.status, res.body?.code);
  return {
    loadCall: async () => null,
    postEvents: async (events) => {
      const res = await runtime('POST', `/runtime/v1/calls/${callId}/events`, { body: { events } });
      if (res.status !== 200) throw refused(res);
    },
    checkCalendar: async (query) => {
      const res = await runtime('POST', `/runtime/v1/calls/${callId}/calendar/availability`, { body: query });
      if (res.status !== 200) throw refused(res);
      return res.body;
    },
  };
}

describe('the voice runtime tools against the runtime routes', () => {
  it('an inbound caller: free times from the calendar, a booking, a qualification and a callback, all shown on the call', async () => {
    const world = await agentNumberWorld(stack);
    setClock('2026-05-29T12:00:00Z');
    const version = (await world.api('GET', `/v1/agent-versions/${world.agent.versionId}`)).body;
    const { token, call } = await world.ring();
    const cp = httpControlPlane(token!, call.id);
    const brief: CallBrief = {
      claims: { tenant_id: world.tenantId, call_id: call.id, agent_version_id: world.agent.versionId, number_id: world.number.id, exp: 0 },
      direction: 'inbound',
      use_case: version.definition.use_case,
      outcome_type: 'appointment', // tpl_sdr_outbound's
      objectives: version.objectives,
      definition: version.definition,
      questions: [],
      context: {},
      transfer_targets: [],
    };
    let n = 0;
    const ends: HandoffData[] = [];
    const tools = grantedTools(brief, cp, { requestEnd: (d) => ends.push(d) }, { next: (p) => `vt-${call.id}-${p}-${++n}`, now });
    const run = (name: string, args: unknown) => tools.find((t) => t.name === name)!.execute(args, { signal: new AbortController().signal });
    expect(tools.map((t) => t.name).sort()).toEqual([...version.definition.tools].filter((t: string) => t !== 'transfer_to_human').sort());

    // The caller speaks first (the call moves to in_conversation), as the session reports it.
    await cp.postEvents([{ id: `vt-${call.id}-turn`, type: 'turn', at: now().toISOString(), speaker: 'contact', text: 'I would like to book a visit' }]);
    await expect(run('check_calendar', { start_date: '2026-06-01' })).rejects.toThrow(/No calendar is connected/);
    await world.api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } });
    const free = (await run('check_calendar', { start_date: '2026-06-01', end_date: '2026-06-02', duration_minutes: 30 })) as {
      slots: { starts_at: string }[];
    };
    expect(free.slots.length).toBeGreaterThan(0);
    const slot = free.slots[0]!.starts_at;

    await run('book_meeting', { starts_at: slot, duration_minutes: 30, contact_confirmed: true });
    // Every required objective answered after the booking: the appointment is re-reported as the goal reached.
    await run('record_qualification', {
      answers: [
        { question_id: 'confirm_identity', value: 'Confirmed' },
        { question_id: 'qualify', value: 'Owns the house' },
        { question_id: 'book_meeting', value: 'Booked' },
      ],
      qualified: true,
    });
    await run('schedule_callback', { preferred_window: 'weekday mornings', reason: 'Financing questions' });
    await run('end_call', {});
    expect(ends).toEqual([{ reason: 'end_call' }]);

    const detail = (await world.api('GET', `/v1/calls/${call.id}`)).body;
    expect(detail.conversation_actions.map((a: { kind: string }) => a.kind)).toEqual(['book_meeting', 'record_qualification', 'schedule_callback', 'end_call']);
    expect(detail.conversation_actions[0].action_confirmation).toMatchObject({ kind: 'read_back', response: 'confirmed' });
    // The booking's appointment outcome stands: the qualification's `none` does not replace it.
    expect(detail.outcome).toMatchObject({ outcome_type: 'appointment', status: 'booked', starts_at: slot, goal_reached: true });
    expect(detail.recorded_responses.map((r: { kind: string; question_id: string }) => `${r.kind}:${r.question_id}`)).toEqual([
      'objective:confirm_identity',
      'objective:qualify',
      'objective:book_meeting',
    ]);
    expect(Object.values(detail.qualification_reviews)).toEqual([
      expect.objectContaining({ answers: { confirm_identity: 'Confirmed', qualify: 'Owns the house', book_meeting: 'Booked' }, qualified: true }),
    ]);
    const handoffs = (await listTenantEvents(world.tenantId)).filter((e) => e.type === 'handoff.created' && e.data.call_id === call.id);
    expect(handoffs.map((e) => e.data.kind).sort()).toEqual(['booking', 'callback']);
  });
});
