/** Every call.* event carries what a webhook receiver needs to act on it alone (ids, state, disposition), whichever builder made it. */
import { describe, expect, it } from 'vitest';
import { attemptEndItems } from '../../shared/calls/attempt-end.js';
import { blockedEvent, completedEvent, dialingEvent, queuedEvent, scheduledEvent } from '../../shared/calls/call-outbox-events.js';
import { CALL_EVENT_FIELDS, callEventData } from '../../shared/events/call-event-data.js';
import type { OutboundCallRecord } from '../../shared/repositories/outbound-calls.js';

process.env.TABLE_NAME ??= 'unit-table';

const at = new Date('2026-11-18T15:00:00.000Z');
const call = {
  id: 'cal_1',
  tenant_id: 'ten_1',
  direction: 'outbound',
  state: 'scheduled',
  disposition: null,
  disposition_set_by: null,
  end_reason: null,
  attempt_id: 'att_1',
  contact_id: 'con_1',
  agent_id: 'agt_1',
  agent_version_id: 'agv_1',
  campaign_id: null,
  origin: 'api',
  compliance: { outcome: 'allow', disposition: null, reasons: [{ code: 'quiet_hours', message: '' }] },
} as unknown as OutboundCallRecord;

/** The event data a builder put in its transaction (the tenant log's Put). */
const dataOf = (items: { Put?: { Item?: Record<string, unknown> } }[]) => {
  const event = items.map((i) => i.Put?.Item?.event as { type: string; data: Record<string, unknown> } | undefined).find(Boolean)!;
  return event;
};

describe('call event data', () => {
  const built = {
    'call.queued': dataOf(queuedEvent(call, at)),
    'call.scheduled': dataOf(scheduledEvent(call, at.toISOString(), at)),
    'call.blocked': dataOf(
      blockedEvent({ ...call, state: 'disposed' }, { disposition: 'dnc_hit', disposition_set_by: 'compliance', end_reason: 'compliance_blocked' }, at),
    ),
    'call.dialing': dataOf(dialingEvent({ ...call, state: 'dialing' }, at, { phone_number_id: 'pnb_1', from_e164: '+12125550199' })),
    'call.completed': dataOf(
      completedEvent(call, { state: 'failed', disposition: 'failed', disposition_set_by: 'system', end_reason: 'dispatch_unknown' }, at),
    ),
  };

  it.each(Object.entries(built))('%s has call_id, attempt_id, contact_id, state and disposition (null when not set)', (type, event) => {
    expect(event.type).toBe(type);
    for (const field of CALL_EVENT_FIELDS) expect(event.data, `${type}.${field}`).toHaveProperty(field);
    expect(event.data).toMatchObject({
      call_id: 'cal_1',
      attempt_id: 'att_1',
      contact_id: 'con_1',
      agent_version_id: 'agv_1',
      direction: 'outbound',
      at: at.toISOString(),
    });
  });

  it('state and disposition are the ones after the change', () => {
    expect(built['call.queued'].data).toMatchObject({ state: 'scheduled', disposition: null });
    expect(built['call.scheduled'].data).toMatchObject({ state: 'scheduled', disposition: null, reasons: ['quiet_hours'] });
    expect(built['call.blocked'].data).toMatchObject({
      state: 'disposed',
      disposition: 'dnc_hit',
      disposition_set_by: 'compliance',
      end_reason: 'compliance_blocked',
    });
    expect(built['call.dialing'].data).toMatchObject({ state: 'dialing', disposition: null, from_e164: '+12125550199' });
    expect(built['call.completed'].data).toMatchObject({
      state: 'failed',
      disposition: 'failed',
      disposition_set_by: 'system',
      end_reason: 'dispatch_unknown',
    });
  });

  it('the lifecycle payload takes the change over the call, and an inbound call has null attempt and contact', () => {
    expect(
      callEventData(
        { ...call, state: 'in_conversation' },
        { state: 'completed', disposition: 'opt_out', disposition_set_by: 'agent_llm', end_reason: 'carrier_completed' },
      ),
    ).toMatchObject({ state: 'completed', disposition: 'opt_out', attempt_id: 'att_1' });
    const inbound = callEventData({ id: 'cal_2', direction: 'inbound', state: 'answered', disposition: null, disposition_set_by: null, end_reason: null });
    expect(inbound).toEqual({
      call_id: 'cal_2',
      attempt_id: null,
      contact_id: null,
      agent_id: null,
      agent_version_id: null,
      campaign_id: null,
      direction: 'inbound',
      state: 'answered',
      disposition: null,
      disposition_set_by: null,
      end_reason: null,
    });
  });

  it("an attempt's end is the completed event, plus the campaign's row and counters for a campaign attempt", () => {
    const end = { state: 'failed', disposition: 'failed', disposition_set_by: 'system', end_reason: 'dispatch_unknown' };
    const single = attemptEndItems(call, end, at);
    expect(single).toHaveLength(completedEvent(call, end, at).length);
    expect(dataOf(single).type).toBe('call.completed');
    const campaignCall = {
      ...call,
      campaign_id: 'cmp_1',
      origin: 'campaign',
      campaign_attempt: { number: 1, max_attempts: 1, retry_after_minutes: 60 },
    } as unknown as OutboundCallRecord;
    const items = attemptEndItems(campaignCall, end, at);
    expect(items.length).toBeGreaterThan(completedEvent(campaignCall, end, at).length);
    expect(dataOf(items).type).toBe('call.completed');
    expect(items.some((i) => 'Update' in i)).toBe(true);
  });
});
