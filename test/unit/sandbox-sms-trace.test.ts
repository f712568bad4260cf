import { describe, expect, it } from 'vitest';
import { smsTrace } from '../../shared/sandbox/inbound-message.js';

const text = { from: '+12125550107', to: '+14155550150', body: 'STOP' };
const base = { message_sid: 'SM1', to: text.to, from: text.from };

describe('sandbox sms: the exchange as the contact lived it', () => {
  it('shows the text sent and the confirmation received', () => {
    expect(smsTrace(text, { ...base, outcome: 'answered', status: 200, replies: ['Acme: You are unsubscribed.'] })).toEqual([
      '+12125550107 → +14155550150: STOP',
      '+14155550150 → +12125550107: Acme: You are unsubscribed.',
    ]);
  });
  it('says so when nothing came back, and why', () => {
    expect(smsTrace(text, { ...base, outcome: 'answered', status: 200, replies: [] })[1]).toBe('(no reply sent back)');
    expect(smsTrace(text, { ...base, outcome: 'not_in_service', replies: [] })[1]).toMatch(/not a sandbox number/);
    expect(smsTrace(text, { ...base, outcome: 'webhook_failed', status: 403, replies: [] })[1]).toMatch(/answered 403/);
  });
});
