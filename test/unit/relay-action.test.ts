import { describe, expect, it } from 'vitest';
import { readTwiml } from '../../shared/sandbox/twiml-reader.js';
import { OUTBOUND_GOODBYE } from '../../shared/telephony/outbound-answer.js';
import {
  AFTER_TRANSFER,
  decideRelayAction,
  MAX_RELAY_RECONNECTS,
  parseHandoffData,
  RELAY_SOCKET_LOST,
  type RelayActionFacts,
  renderRelayAction,
  TRANSFER_UNAVAILABLE,
} from '../../shared/telephony/relay-action.js';

const facts = (f: Partial<RelayActionFacts>): RelayActionFacts => ({ handoff: null, errorCode: null, callLive: true, reconnects: 0, ...f });
const parts = { transferNumber: '+14155550100', callerId: '+14155550199', relay: '<?xml version="1.0" encoding="UTF-8"?><Response><Connect/></Response>' };
const verbs = (xml: string) => readTwiml(xml);

describe('HandoffData as Twilio posts it', () => {
  it('reads the JSON the runtime sent; anything else is null', () => {
    expect(parseHandoffData('{"reason":"transfer_to_human","rep_id":"rep_1"}')).toEqual({ reason: 'transfer_to_human', rep_id: 'rep_1' });
    expect(parseHandoffData('{"reason":"end_call","closing":"Bye."}')).toEqual({ reason: 'end_call', closing: 'Bye.' });
    for (const bad of [undefined, '', 'not json', '[]', '{"reason":"dance"}', '{"reason":"end_call","phone":"+14155550100"}'])
      expect(parseHandoffData(bad), String(bad)).toBeNull();
  });
});

describe('what the call hears when its relay session ends', () => {
  it('transfer_to_human → Dial the stored number with our caller id, then a closing and Hangup', () => {
    const decision = decideRelayAction(facts({ handoff: { reason: 'transfer_to_human', rep_id: 'rep_1' } }));
    expect(decision).toEqual({ kind: 'transfer', rep_id: 'rep_1' });
    expect(verbs(renderRelayAction(decision, parts))).toEqual([
      { verb: 'Dial', action: null, timeout: 30, numbers: ['+14155550100'] },
      { verb: 'Say', text: AFTER_TRANSFER },
      { verb: 'Hangup' },
    ]);
    expect(renderRelayAction(decision, parts)).toContain('callerId="+14155550199"');
  });

  it('transfer_to_human without a usable rep → an apology and Hangup, no Dial', () => {
    const decision = decideRelayAction(facts({ handoff: { reason: 'transfer_to_human', rep_id: 'rep_gone' } }));
    expect(verbs(renderRelayAction(decision, { ...parts, transferNumber: null }))).toEqual([{ verb: 'Say', text: TRANSFER_UNAVAILABLE }, { verb: 'Hangup' }]);
    // A transfer that names no rep is not a transfer.
    expect(decideRelayAction(facts({ handoff: { reason: 'transfer_to_human' } }))).toEqual({ kind: 'hangup', reason: 'runtime_error' });
  });

  it('end_call / opt_out / model_failed → the closing if any, then Hangup', () => {
    for (const reason of ['end_call', 'opt_out', 'model_failed'] as const) {
      const said = decideRelayAction(facts({ handoff: { reason, closing: '  Thanks, goodbye.  ' } }));
      expect(said).toEqual({ kind: 'end', reason, closing: 'Thanks, goodbye.' });
      expect(verbs(renderRelayAction(said, parts))).toEqual([{ verb: 'Say', text: 'Thanks, goodbye.' }, { verb: 'Hangup' }]);
      expect(verbs(renderRelayAction(decideRelayAction(facts({ handoff: { reason } })), parts))).toEqual([{ verb: 'Hangup' }]);
    }
  });

  it('64105 on a live call → a fresh relay, counted, at most twice; then a polite hangup', () => {
    expect(decideRelayAction(facts({ errorCode: RELAY_SOCKET_LOST }))).toEqual({ kind: 'reconnect', reconnects: 1 });
    expect(decideRelayAction(facts({ errorCode: RELAY_SOCKET_LOST, reconnects: 1 }))).toEqual({ kind: 'reconnect', reconnects: 2 });
    expect(renderRelayAction({ kind: 'reconnect', reconnects: 1 }, parts)).toBe(parts.relay);
    const exhausted = decideRelayAction(facts({ errorCode: RELAY_SOCKET_LOST, reconnects: MAX_RELAY_RECONNECTS }));
    expect(exhausted).toEqual({ kind: 'hangup', reason: 'reconnects_exhausted' });
    expect(verbs(renderRelayAction(exhausted, parts))).toEqual([{ verb: 'Say', text: OUTBOUND_GOODBYE }, { verb: 'Hangup' }]);
    // The pinned version vanished: nothing to reconnect to.
    expect(verbs(renderRelayAction({ kind: 'reconnect', reconnects: 1 }, { ...parts, relay: null }))).toEqual([
      { verb: 'Say', text: OUTBOUND_GOODBYE },
      { verb: 'Hangup' },
    ]);
  });

  it('64105 on a call that is over, another error, a session that simply ended, a runtime_error handoff → polite hangup', () => {
    expect(decideRelayAction(facts({ errorCode: RELAY_SOCKET_LOST, callLive: false }))).toEqual({ kind: 'hangup', reason: 'call_over' });
    expect(decideRelayAction(facts({ errorCode: '64101' }))).toEqual({ kind: 'hangup', reason: 'session_ended' });
    expect(decideRelayAction(facts({}))).toEqual({ kind: 'hangup', reason: 'session_ended' });
    expect(decideRelayAction(facts({ handoff: { reason: 'runtime_error' }, errorCode: RELAY_SOCKET_LOST }))).toEqual({
      kind: 'hangup',
      reason: 'runtime_error',
    });
    expect(verbs(renderRelayAction({ kind: 'hangup', reason: 'session_ended' }, parts))).toEqual([{ verb: 'Say', text: OUTBOUND_GOODBYE }, { verb: 'Hangup' }]);
  });
});
