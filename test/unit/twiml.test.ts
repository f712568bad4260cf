import VoiceResponse from 'twilio/lib/twiml/VoiceResponse.js';
import { describe, expect, it } from 'vitest';
import {
  type ConversationRelayOptions,
  connectConversationRelay,
  dial,
  gather,
  hangup,
  pause,
  record,
  redirect,
  reject,
  say,
  twiml,
} from '../../shared/telephony/twiml.js';

const nasty = `Tom & Jerry <b>"quoted"</b> 'single' café 😀 日本語`;

const relay: ConversationRelayOptions = {
  action: 'https://api.example.com/carrier/twilio/relay-action?call_id=cal_1&reconnects=0&sig=a_b',
  url: 'wss://api.example.com/runtime/v1/relay?token=v1.abc.def',
  welcomeGreeting: 'Hello, this is an automated assistant calling on behalf of Acme. This call may be recorded.',
  language: 'en-US',
  voice: 'UgBBYS2sOqTuMpoF3BR0',
  ttsProvider: 'ElevenLabs',
  transcriptionProvider: 'Deepgram',
  speechModel: 'nova-3-general',
  languages: [{ code: 'en-US', voice: 'UgBBYS2sOqTuMpoF3BR0', ttsProvider: 'ElevenLabs' }],
  parameters: { token: 'v1.abc.def' },
};

/** The same document through twilio's VoiceResponse, attribute for attribute. */
function twilioRelay(vr: VoiceResponse, o: ConversationRelayOptions): void {
  const cr = vr.connect({ action: o.action, method: 'POST' }).conversationRelay({
    url: o.url,
    welcomeGreeting: o.welcomeGreeting,
    welcomeGreetingInterruptible: 'none',
    language: o.language,
    voice: o.voice,
    ttsProvider: o.ttsProvider,
    transcriptionProvider: o.transcriptionProvider,
    speechModel: o.speechModel,
    interruptible: 'any',
    dtmfDetection: true,
  });
  for (const l of o.languages) cr.language({ code: l.code, voice: l.voice, ttsProvider: l.ttsProvider });
  for (const [name, value] of Object.entries(o.parameters)) cr.parameter({ name, value });
}

describe('TwiML builder', () => {
  it("writes each verb exactly as Twilio's VoiceResponse does", () => {
    const ours = twiml(
      gather({
        action: 'https://api.example.com/carrier/twilio/gather?p=open.0&sig=a_b',
        timeoutSeconds: 5,
        prompt: [say(nasty, { voice: 'Polly.Joanna', language: 'en-US' }), pause(1)],
      }),
      dial({ numbers: ['+14155550100', '+14155550101'], timeoutSeconds: 20, action: 'https://api.example.com/carrier/twilio/dial?x=1&y=2' }),
      record({ maxLengthSeconds: 120, action: 'https://api.example.com/carrier/twilio/recorded' }),
      redirect('https://api.example.com/carrier/twilio/gather?a=1&b=2'),
      reject('busy'),
      reject(),
      hangup(),
    );
    const vr = new VoiceResponse();
    const g = vr.gather({
      input: ['dtmf'],
      numDigits: 1,
      timeout: 5,
      action: 'https://api.example.com/carrier/twilio/gather?p=open.0&sig=a_b',
      method: 'POST',
      actionOnEmptyResult: true,
    });
    g.say({ voice: 'Polly.Joanna', language: 'en-US' }, nasty);
    g.pause({ length: 1 });
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

  it('writes <Connect action><ConversationRelay> with its <Language> and <Parameter> children exactly as VoiceResponse does', () => {
    const documents: ConversationRelayOptions[] = [
      relay,
      { ...relay, languages: [], parameters: {} },
      {
        ...relay,
        welcomeGreeting: nasty,
        language: 'es-MX',
        voice: 'es-US-Neural2-A',
        ttsProvider: 'Google',
        transcriptionProvider: 'Google',
        speechModel: 'telephony',
        languages: [
          { code: 'es-MX', voice: 'es-US-Neural2-A', ttsProvider: 'Google' },
          { code: 'en-US', voice: 'en-US-Journey-O', ttsProvider: 'Google' },
          { code: 'fr-FR', voice: 'fr-FR-Neural2-A', ttsProvider: 'Google' },
        ],
        parameters: { token: 'v1.abc&"<>', extra: 'a\tb' },
      },
    ];
    for (const doc of documents) {
      const vr = new VoiceResponse();
      twilioRelay(vr, doc);
      expect(twiml(connectConversationRelay(doc))).toBe(vr.toString());
    }
    // After a dial, in one document, as the transfer answers.
    const vr = new VoiceResponse();
    vr.say({}, 'Connecting you now.');
    vr.dial({ timeout: 30, callerId: '+14155550199' }).number('+14155550100');
    vr.hangup();
    expect(twiml(say('Connecting you now.'), dial({ numbers: ['+14155550100'], timeoutSeconds: 30, callerId: '+14155550199' }), hangup())).toBe(vr.toString());
  });

  it('escapes markup characters in text and attributes', () => {
    expect(twiml(say('a & b < c > d "e" \'f\''))).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Say>a &amp; b &lt; c &gt; d "e" 'f'</Say></Response>`);
    const doc = twiml(connectConversationRelay({ ...relay, url: 'wss://x/s?a=1&b=2', languages: [], parameters: { token: `<"&'>` } }));
    expect(doc).toContain(`url="wss://x/s?a=1&amp;b=2"`);
    expect(doc).toContain(`<Parameter name="token" value="&lt;&quot;&amp;'>"/></ConversationRelay>`);
    expect(twiml(say('line\nbreak\r\ttab'))).toContain('<Say>line\nbreak&#xD;\ttab</Say>');
    expect(twiml(connectConversationRelay({ ...relay, parameters: { t: 'a\tb\nc' } }))).toContain('value="a&#x9;b&#xA;c"');
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
