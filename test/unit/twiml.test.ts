import { describe, expect, it } from 'vitest';
import VoiceResponse from 'twilio/lib/twiml/VoiceResponse.js';
import { connectStream, dial, gather, hangup, pause, record, redirect, reject, say, twiml } from '../../shared/telephony/twiml.js';

const nasty = `Tom & Jerry <b>"quoted"</b> 'single' café 😀 日本語`;

describe('TwiML builder', () => {
  it("writes each verb exactly as Twilio's VoiceResponse does", () => {
    const ours = twiml(
      gather({ action: 'https://api.example.com/carrier/twilio/gather?p=open.0&sig=a_b', timeoutSeconds: 5, prompt: [say(nasty, { voice: 'Polly.Joanna', language: 'en-US' }), pause(1)] }),
      connectStream({ url: 'wss://runtime.example.com/stream', parameters: { token: 'v1.abc&"<>' } }),
      dial({ numbers: ['+14155550100', '+14155550101'], timeoutSeconds: 20, action: 'https://api.example.com/carrier/twilio/dial?x=1&y=2' }),
      record({ maxLengthSeconds: 120, action: 'https://api.example.com/carrier/twilio/recorded' }),
      redirect('https://api.example.com/carrier/twilio/gather?a=1&b=2'),
      reject('busy'),
      reject(),
      hangup(),
    );
    const vr = new VoiceResponse();
    const g = vr.gather({ input: ['dtmf'], numDigits: 1, timeout: 5, action: 'https://api.example.com/carrier/twilio/gather?p=open.0&sig=a_b', method: 'POST', actionOnEmptyResult: true });
    g.say({ voice: 'Polly.Joanna', language: 'en-US' }, nasty);
    g.pause({ length: 1 });
    vr.connect().stream({ url: 'wss://runtime.example.com/stream' }).parameter({ name: 'token', value: 'v1.abc&"<>' });
    const d = vr.dial({ timeout: 20, action: 'https://api.example.com/carrier/twilio/dial?x=1&y=2', method: 'POST' });
    d.number('+14155550100');
    d.number('+14155550101');
    vr.record({ maxLength: 120, action: 'https://api.example.com/carrier/twilio/recorded', method: 'POST' });
    vr.redirect({ method: 'POST' }, 'https://api.example.com/carrier/twilio/gather?a=1&b=2');
    vr.reject({ reason: 'busy' });
    vr.reject();
    vr.hangup();
    expect(ours).toBe(vr.toString());
  });

  it('escapes markup characters in text and attributes', () => {
    expect(twiml(say('a & b < c > d "e" \'f\''))).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Say>a &amp; b &lt; c &gt; d "e" 'f'</Say></Response>`);
    const doc = twiml(connectStream({ url: 'wss://x/s?a=1&b=2', parameters: { token: `<"&'>` } }));
    expect(doc).toContain(`<Stream url="wss://x/s?a=1&amp;b=2"><Parameter name="token" value="&lt;&quot;&amp;'>"/></Stream>`);
    expect(twiml(say('line\nbreak\r\ttab'))).toContain('<Say>line\nbreak&#xD;\ttab</Say>');
    expect(twiml(connectStream({ url: 'wss://x', parameters: { t: 'a\tb\nc' } }))).toContain('value="a&#x9;b&#xA;c"');
  });

  it('keeps unicode as is and drops characters XML cannot carry', () => {
    expect(twiml(say('café 😀 日本語'))).toContain('<Say>café 😀 日本語</Say>');
    expect(twiml(say('a\u0000b\u0007c\uFFFFd\uD800e\uDC00f'))).toContain('<Say>abcdef</Say>');
  });

  it('renders empty verbs self-closed and omits unset attributes', () => {
    expect(twiml(hangup())).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>');
    expect(twiml(reject())).toContain('<Reject/>');
    expect(twiml(say('hi'))).toContain('<Say>hi</Say>');
    expect(twiml(dial({ numbers: ['+14155550100'], timeoutSeconds: 15, action: 'https://x/d', callerId: '+14155550199' }))).toContain(
      '<Dial timeout="15" action="https://x/d" method="POST" callerId="+14155550199"><Number>+14155550100</Number></Dial>',
    );
    expect(twiml(gather({ action: 'https://x/g', timeoutSeconds: 7, prompt: [say('Press 1')] }))).toContain(
      '<Gather input="dtmf" numDigits="1" timeout="7" action="https://x/g" method="POST" actionOnEmptyResult="true"><Say>Press 1</Say></Gather>',
    );
  });
});
