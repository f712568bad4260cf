/**
 * The ConversationRelay <Connect action> callback over the local stack: the action URL our
 * answer TwiML carries is signed twice (X-Twilio-Signature and our own MAC over its state),
 * and answers a transfer with the rep's stored number, a closing with a hang-up, and a dead
 * runtime socket with at most two reconnects.
 */
import { describe, expect, it } from 'vitest';
import { createRep } from '../../shared/repositories/reps.js';
import { readTwiml } from '../../shared/sandbox/twiml-reader.js';
import { OUTBOUND_GOODBYE } from '../../shared/telephony/outbound-answer.js';
import { AFTER_TRANSFER, TRANSFER_UNAVAILABLE } from '../../shared/telephony/relay-action.js';
import { RECONNECT_GREETING } from '../../shared/telephony/relay-twiml.js';
import { useTestStack } from '../support/stack.js';
import { agentNumberWorld } from './inbound-fixtures.js';

const stack = useTestStack({ workers: false });

/** The path and query of a Connect's action URL (what the carrier posts to). */
const actionOf = (twiml: string) => {
  const [connect] = readTwiml(twiml);
  if (connect?.verb !== 'Connect' || !connect.action) throw new Error(`no relay action in ${twiml}`);
  const url = new URL(connect.action);
  return `${url.pathname}${url.search}`;
};

async function answeredCall() {
  const world = await agentNumberWorld(stack);
  const rang = await world.ring();
  const ended = (extra: Record<string, string>, path = actionOf(rang.twiml)) =>
    world.carrier(path, { ...rang.params, CallStatus: 'in-progress', SessionId: 'VX0123', SessionStatus: 'ended', SessionDuration: '12', ...extra });
  return { world, rang, ended };
}

describe('the relay action callback', () => {
  it('transfer_to_human dials the active rep’s stored number with our number as caller id; an unknown or disabled rep gets an apology', async () => {
    const { world, ended } = await answeredCall();
    const rep = await createRep({ tenantId: world.tenantId, name: 'Rita', transferNumber: '+14155550142', disabled: false }, new Date());
    const res = await ended({ HandoffData: JSON.stringify({ reason: 'transfer_to_human', rep_id: rep.id }) });
    expect(res.status).toBe(200);
    expect(readTwiml(res.text)).toEqual([
      { verb: 'Dial', action: null, timeout: 30, numbers: ['+14155550142'] },
      { verb: 'Say', text: AFTER_TRANSFER },
      { verb: 'Hangup' },
    ]);
    expect(res.text).toContain(`callerId="${world.number.phone_e164}"`);

    const disabled = await createRep({ tenantId: world.tenantId, name: 'Dan', transferNumber: '+14155550143', disabled: true }, new Date());
    for (const repId of [disabled.id, 'rep_01JZZZZZZZZZZZZZZZZZZZZZZZ']) {
      const refused = await ended({ HandoffData: JSON.stringify({ reason: 'transfer_to_human', rep_id: repId }) });
      expect(readTwiml(refused.text)).toEqual([{ verb: 'Say', text: TRANSFER_UNAVAILABLE }, { verb: 'Hangup' }]);
    }
    // Another tenant's rep is not this tenant's.
    const other = await agentNumberWorld(stack);
    const foreign = await createRep({ tenantId: other.tenantId, name: 'Olga', transferNumber: '+14155550144', disabled: false }, new Date());
    expect(readTwiml((await ended({ HandoffData: JSON.stringify({ reason: 'transfer_to_human', rep_id: foreign.id }) })).text)).toEqual([
      { verb: 'Say', text: TRANSFER_UNAVAILABLE },
      { verb: 'Hangup' },
    ]);
  });

  it('end_call says the closing and hangs up; a session that just ended hangs up politely', async () => {
    const { ended } = await answeredCall();
    expect(readTwiml((await ended({ HandoffData: JSON.stringify({ reason: 'end_call', closing: 'Thanks for calling Acme.' }) })).text)).toEqual([
      { verb: 'Say', text: 'Thanks for calling Acme.' },
      { verb: 'Hangup' },
    ]);
    expect(readTwiml((await ended({})).text)).toEqual([{ verb: 'Say', text: OUTBOUND_GOODBYE }, { verb: 'Hangup' }]);
  });

  it('a lost socket (64105) reconnects the same call twice with the short apology, then hangs up; a tampered count is 403', async () => {
    const { ended, rang } = await answeredCall();
    const lost = { SessionStatus: 'failed', ErrorCode: '64105', ErrorMessage: 'WebSocket closed' };
    const first = await ended(lost);
    expect(first.text).toContain(`welcomeGreeting="${RECONNECT_GREETING}"`);
    const [relay] = readTwiml(first.text);
    expect(relay).toMatchObject({ verb: 'Connect', relayUrl: expect.stringContaining('/runtime/v1/relay?token='), parameters: { token: expect.any(String) } });
    const second = await ended(lost, actionOf(first.text));
    expect(second.text).toContain(`welcomeGreeting="${RECONNECT_GREETING}"`);
    const third = await ended(lost, actionOf(second.text));
    expect(readTwiml(third.text)).toEqual([{ verb: 'Say', text: OUTBOUND_GOODBYE }, { verb: 'Hangup' }]);

    // The count is ours: resetting it in the URL breaks our MAC (the carrier's signature over the new URL is fine).
    const tampered = actionOf(second.text).replace(/reconnects=2/, 'reconnects=0');
    expect(tampered).toContain('reconnects=0');
    expect((await ended(lost, tampered)).status).toBe(403);
    // The first relay's action, replayed, is still the first (signed state, not a counter we store).
    expect((await ended(lost, actionOf(rang.twiml))).text).toContain(`welcomeGreeting="${RECONNECT_GREETING}"`);
  });

  it("refuses an unsigned callback and a signed state naming another tenant's call (403)", async () => {
    const { rang, ended } = await answeredCall();
    const path = actionOf(rang.twiml);
    const unsigned = await stack.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...rang.params, ErrorCode: '64105' }).toString(),
    });
    expect(unsigned.status).toBe(403);
    // Another tenant's call: its own signed action URL, posted with this call's CallSid.
    const other = await agentNumberWorld(stack);
    const theirs = await other.ring();
    expect((await ended({ ErrorCode: '64105' }, actionOf(theirs.twiml))).status).toBe(403);
  });
});
