import { describe, expect, it } from 'vitest';
import { readTwiml, TwimlUnreadable } from '../../shared/sandbox/twiml-reader.js';

describe('the sandbox reads TwiML as Twilio runs it', () => {
  it('reads every verb the call path answers with, in order, with escaped text and attributes', () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><Response>' +
      '<Gather input="dtmf" numDigits="1" timeout="7" action="https://api.test/carrier/twilio/gather?v=2&amp;p=open.0" method="POST" actionOnEmptyResult="true"><Say>Press 1 for sales &amp; 2 for support</Say></Gather>' +
      '<Dial timeout="20" action="https://api.test/dial"><Number>+14155550100</Number><Number>+14155550101</Number></Dial>' +
      '<Connect><Stream url="wss://rt.test/stream"><Parameter name="token" value="a.b"/></Stream></Connect>' +
      '<Connect action="https://api.test/carrier/twilio/relay-action?call_id=c&amp;sig=s" method="POST"><ConversationRelay url="wss://api.test/runtime/v1/relay?token=a.b" welcomeGreeting="Hi" dtmfDetection="true"><Language code="en-US" voice="v" ttsProvider="ElevenLabs"/><Parameter name="token" value="a.b"/></ConversationRelay></Connect>' +
      '<Record maxLength="120" action="https://api.test/rec"/><Pause length="2"/><Redirect>https://api.test/next</Redirect><Reject reason="busy"/><Hangup/><Sms>x</Sms>' +
      '</Response>';
    expect(readTwiml(xml)).toEqual([
      {
        verb: 'Gather',
        action: 'https://api.test/carrier/twilio/gather?v=2&p=open.0',
        timeout: 7,
        numDigits: 1,
        actionOnEmptyResult: true,
        children: [{ verb: 'Say', text: 'Press 1 for sales & 2 for support' }],
      },
      { verb: 'Dial', action: 'https://api.test/dial', timeout: 20, numbers: ['+14155550100', '+14155550101'] },
      { verb: 'Connect', action: null, relayUrl: null, streamUrl: 'wss://rt.test/stream', parameters: { token: 'a.b' } },
      {
        verb: 'Connect',
        action: 'https://api.test/carrier/twilio/relay-action?call_id=c&sig=s',
        relayUrl: 'wss://api.test/runtime/v1/relay?token=a.b',
        streamUrl: null,
        parameters: { token: 'a.b' },
      },
      { verb: 'Record', action: 'https://api.test/rec', maxLength: 120 },
      { verb: 'Pause', length: 2 },
      { verb: 'Redirect', url: 'https://api.test/next' },
      { verb: 'Reject', reason: 'busy' },
      { verb: 'Hangup' },
      { verb: 'unknown', name: 'Sms' },
    ]);
  });

  it('keeps numbers as text (a leading + or 0 survives) and an empty Response is no verbs', () => {
    expect(readTwiml('<Response><Say>0100</Say></Response>')).toEqual([{ verb: 'Say', text: '0100' }]);
    expect(readTwiml('<Response></Response>')).toEqual([]);
  });

  it('refuses what is not TwiML', () => {
    expect(() => readTwiml('{"json": true}')).toThrow(TwimlUnreadable);
    expect(() => readTwiml('<Other/>')).toThrow(TwimlUnreadable);
  });
});
