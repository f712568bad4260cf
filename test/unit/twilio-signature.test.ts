import { createHmac } from 'node:crypto';
// The full helper library, as a Twilio customer would use it: signatures it makes must pass.
import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import { formParams, type TwilioParams, twilioSignature, verifyTwilioSignature } from '../../shared/telephony/twilio-signature.js';

const token = '12345678901234567890123456789012';
const url = 'https://api.example.com/carrier/twilio/voice';
const params = { CallSid: 'CA1234567890ABCDE', AccountSid: 'AC0123', From: '+14158675309', To: '+18005551212', Digits: '1' };
const byLibrary = (u: string, p: TwilioParams, t = token) => twilio.getExpectedTwilioSignature(t, u, p);
const verify = (signature: string | undefined, u = url, p: TwilioParams = params, t = token) =>
  verifyTwilioSignature({ authToken: t, signature, url: u, params: p });

describe('X-Twilio-Signature', () => {
  it("matches Twilio's documented algorithm: HMAC-SHA1(token, url + sorted name+value pairs), base64", () => {
    const data =
      url +
      Object.keys(params)
        .sort()
        .map((k) => k + params[k as keyof typeof params])
        .join('');
    const manual = createHmac('sha1', token).update(data, 'utf8').digest('base64');
    expect(twilioSignature(token, url, params)).toBe(manual);
    expect(byLibrary(url, params)).toBe(manual);
  });

  it("reproduces the helper library's own published test vector", () => {
    // twilio-node's spec: auth token 12345, this URL and these parameters sign to this value.
    const vector = { CallSid: 'CA1234567890ABCDE', Caller: '+14158675309', Digits: '1234', From: '+14158675309', To: '+18005551212' };
    expect(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', vector)).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
    expect(
      verifyTwilioSignature({
        authToken: '12345',
        signature: 'RSOYDt4T1cUTdK1PDd93/VVr8B8=',
        url: 'https://mycompany.com/myapp.php?foo=1&bar=2',
        params: vector,
      }),
    ).toBe(true);
  });

  it('accepts a signature the library made, and refuses a tampered parameter, an added or dropped one', () => {
    const sig = byLibrary(url, params);
    expect(verify(sig)).toBe(true);
    expect(verify(sig, url, { ...params, Digits: '2' })).toBe(false);
    expect(verify(sig, url, { ...params, Extra: '' })).toBe(false);
    const { Digits: _dropped, ...fewer } = params;
    expect(verify(sig, url, fewer)).toBe(false);
  });

  it('refuses a signature for another URL (path, query, scheme, host)', () => {
    const sig = byLibrary(url, params);
    expect(verify(sig, `${url}/x`)).toBe(false);
    expect(verify(sig, `${url}?v=2`)).toBe(false);
    expect(verify(sig, url.replace('https:', 'http:'))).toBe(false);
    expect(verify(sig, url.replace('api.example.com', 'evil.example.com'))).toBe(false);
  });

  it('refuses a wrong auth token, and a missing, empty or garbled header', () => {
    expect(verify(byLibrary(url, params, 'f'.repeat(32)))).toBe(false);
    expect(verify(byLibrary(url, params), url, params, 'f'.repeat(32))).toBe(false);
    expect(verify(undefined)).toBe(false);
    expect(verify('')).toBe(false);
    expect(verify('not-base64!')).toBe(false);
    expect(verifyTwilioSignature({ authToken: '', signature: byLibrary(url, params, ''), url, params })).toBe(false);
  });

  it('treats the URL with and without the default port as the same, like Twilio', () => {
    expect(verify(byLibrary('https://api.example.com:443/carrier/twilio/voice', params))).toBe(true);
    expect(verify(byLibrary(url, params), 'https://api.example.com:443/carrier/twilio/voice')).toBe(true);
    expect(verify(byLibrary('https://api.example.com:8443/carrier/twilio/voice', params))).toBe(false);
  });

  it('handles repeated parameters and unicode values exactly as the library does', () => {
    const body = 'To=%2B18005551212&Speech=caf%C3%A9+%F0%9F%98%80&Tag=b&Tag=a&constructor=x';
    const p = formParams(body);
    expect(p.Tag).toEqual(['b', 'a']);
    expect(p.Speech).toBe('café 😀');
    expect(p.constructor).toBe('x');
    const sig = byLibrary(url, { ...p });
    expect(verify(sig, url, p)).toBe(true);
    expect(twilioSignature(token, url, p)).toBe(sig);
    expect(verify(sig, url, { ...p, Tag: ['b'] })).toBe(false);
    expect(verify(sig, url, { ...p, Speech: 'cafe 😀' })).toBe(false);
  });

  it('checks a query-string callback URL as signed, including its query parameters', () => {
    const gatherUrl = `${url}/gather?call=cal_1&path=open.0&sig=abc`;
    const sig = byLibrary(gatherUrl, { Digits: '1' });
    expect(verify(sig, gatherUrl, { Digits: '1' })).toBe(true);
    expect(verify(sig, gatherUrl.replace('open.0', 'open.1'), { Digits: '1' })).toBe(false);
  });
});
