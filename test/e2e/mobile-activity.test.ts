/**
 * The mobile activity timeline over the local stack: inbound calls (live_call), voicemails,
 * inbound texts (message) and handoffs merge newest first, privacy-minimized, and a client
 * paging with the keyset cursor while new activity arrives sees every older item exactly once.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readTwiml } from '../../shared/sandbox/twiml-reader.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';
import { agentNumberWorld } from './inbound-fixtures.js';
import { randomNumber } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });
let n = 0;

async function world() {
  const world = await agentNumberWorld(stack, { capabilities: ['voice', 'sms'] });
  const { api, number, creds, carrier } = world;
  const t = world;
  const from = randomNumber('212');
  const inboundCall = async () => {
    const { sid, params, twiml, call } = await world.ring(from);
    return { sid, params, twiml, call };
  };
  const text = async () => {
    const sid = `SM${randomBytes(16).toString('hex')}`;
    expect(
      (
        await carrier('/carrier/twilio/message', {
          AccountSid: creds.account_sid,
          MessageSid: sid,
          SmsSid: sid,
          From: from,
          To: number.phone_e164,
          Body: `Hello ${++n}, call me at 555-0100`,
          NumMedia: '0',
          SmsStatus: 'received',
        })
      ).status,
    ).toBe(200);
  };
  return { ...t, api, number, carrier, inboundCall, text, from };
}

const page = async (api: ReturnType<typeof client>, limit: number, cursor?: string) =>
  (await api('GET', `/v1/mobile/receptionist/activity/page?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;

describe('GET /v1/mobile/receptionist/activity/page', () => {
  it('merges live calls, handoffs, voicemails and texts newest first, without transcript, media or numbers', async () => {
    const w = await world();
    const c1 = await w.inboundCall();
    const token = (readTwiml(c1.twiml)[0] as { parameters: Record<string, string> }).parameters.token!;
    const at = new Date().toISOString();
    await client(stack, token)('POST', `/runtime/v1/calls/${c1.call.id}/events`, {
      body: {
        events: [
          { id: `t-${++n}`, type: 'turn', at, speaker: 'contact', text: 'My number is 212 555 0199, call me back' },
          { id: `a-${++n}`, type: 'conversation_action', at, action_id: 'cb', kind: 'schedule_callback', arguments: { phone: w.from } },
        ],
      },
    });
    await w.text();
    await w.api('PATCH', `/v1/phone-numbers/${w.number.id}`, { body: { inbound_route_mode: 'voicemail', inbound_voicemail_greeting: 'Leave word.' } });
    const vm = await w.inboundCall();
    const recorded = { ...vm.params, CallStatus: 'in-progress', RecordingUrl: 'https://rec.test/RE-secret', RecordingDuration: '9' };
    expect((await w.carrier('/carrier/twilio/recording', recorded)).status).toBe(200);
    await w.carrier('/carrier/twilio/recording', recorded); // a replay adds nothing

    const body = await page(w.api, 50);
    expect(body.data.map((a: { kind: string }) => a.kind)).toEqual(['voicemail', 'live_call', 'message', 'handoff', 'live_call']);
    expect(body.data.map((a: { resource_id: string }) => a.resource_id)[0]).toBe(vm.call.id);
    expect(body.data.at(-1).resource_id).toBe(c1.call.id);
    const occurred = body.data.map((a: { occurred_at: string }) => a.occurred_at);
    expect(occurred).toEqual([...occurred].sort().reverse());
    const json = JSON.stringify(body);
    for (const leak of [w.from, w.from.slice(2), w.number.phone_e164, '555-0100', '555 0199', 'rec.test', 'call me']) expect(json).not.toContain(leak);
    for (const a of body.data) expect(Object.keys(a).sort()).toEqual(['id', 'kind', 'label', 'occurred_at', 'resource_id']);
    expect((await page(client(stack, (await newTenant('Other')).token), 50)).data).toEqual([]);
  });

  it('a client paging while activity arrives sees every older item exactly once, in order', async () => {
    const w = await world();
    for (let i = 0; i < 7; i++) await w.inboundCall();
    const before = (await page(w.api, 200)).data.map((a: { id: string }) => a.id);
    expect(before).toHaveLength(7);

    const seen: string[] = [];
    let cursor: string | undefined;
    let inserted = 0;
    do {
      const p = await page(w.api, 2, cursor);
      seen.push(...p.data.map((a: { id: string }) => a.id));
      // New activity lands between every two page reads.
      await w.inboundCall();
      await w.text();
      inserted += 2;
      cursor = p.next_cursor ?? undefined;
      if (!p.has_more) expect(p.next_cursor).toBeNull();
    } while (cursor);
    expect(seen).toEqual(before);
    const after = (await page(w.api, 200)).data.map((a: { id: string }) => a.id);
    expect(after).toHaveLength(7 + inserted);
    expect(after.slice(inserted)).toEqual(before);

    expect((await w.api('GET', '/v1/mobile/receptionist/activity/page?cursor=forged.cursor')).status).toBe(422);
    expect((await w.api('GET', '/v1/mobile/receptionist/activity/page?limit=201')).status).toBe(422);
  });
});
