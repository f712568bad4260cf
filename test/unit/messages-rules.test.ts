/**
 * The pure rules of text messages (see docs/decisions/messaging.md): segments as carriers count them, the inbound
 * intent classification, the status machine, the sending number, templates, and the
 * compliance engine asked for the sms channel.
 */
import { describe, expect, it } from 'vitest';
import { classifyKeyword, intentOf } from '../../shared/messages/intent.js';
import { countSegments } from '../../shared/messages/segments.js';
import { chooseSender, isUsLongCode, type SenderCandidate } from '../../shared/messages/sender-number.js';
import { evaluate } from '../../shared/policy/compliance/evaluate.js';
import { messageTemplate, renderTemplate } from '../../shared/policy/messages/sms-templates.js';
import { type MessageStatus, nextStatus, statusOfCarrier } from '../../shared/policy/messages/status.js';
import { informational, inputs, marketing, pewc, SUBJECT } from '../support/compliance-fixtures.js';

describe('segments: GSM-7 160/153, extension table counts double, else UCS-2 70/67', () => {
  it.each([
    ['a'.repeat(160), 'GSM-7', 1],
    ['a'.repeat(161), 'GSM-7', 2],
    ['a'.repeat(306), 'GSM-7', 2], // 2 × 153
    ['a'.repeat(307), 'GSM-7', 3],
    ['€'.repeat(80), 'GSM-7', 1], // 160 septets
    ['€'.repeat(81), 'GSM-7', 2], // 162 septets
    ['^'.repeat(80), 'GSM-7', 1],
    ['a'.repeat(159) + '^', 'GSM-7', 2], // 161 septets
    ['é'.repeat(160), 'GSM-7', 1], // é is in the default alphabet
    ['ж'.repeat(70), 'UCS-2', 1],
    ['ж'.repeat(71), 'UCS-2', 2],
    ['ж'.repeat(134), 'UCS-2', 2], // 2 × 67
    ['ж'.repeat(135), 'UCS-2', 3],
    ['a'.repeat(69) + '😀', 'UCS-2', 2], // the emoji is two code units: 71
    ['a'.repeat(68) + '😀', 'UCS-2', 1], // 70
  ])('%#: %s… is %s in %i', (body, encoding, segments) => {
    expect(countSegments(body)).toMatchObject({ encoding, segments });
  });

  it('153 per part: 153 × 2 fits two parts, one more septet takes a third', () => {
    expect(countSegments('x'.repeat(153 * 2)).segments).toBe(2);
    expect(countSegments('x'.repeat(153 * 2 + 1)).segments).toBe(3);
  });

  it('an escape pair is never split across parts: 152 letters then € starts the second part', () => {
    // 306 septets would fill two parts exactly, but € cannot straddle them: part 2 opens with it and the last letter spills into a third.
    expect(countSegments('a'.repeat(152) + '€' + 'a'.repeat(152)).segments).toBe(3);
    expect(countSegments('a'.repeat(152) + '€' + 'a'.repeat(151)).segments).toBe(2);
    expect(countSegments('a'.repeat(152) + '€' + 'a'.repeat(152)).units).toBe(306);
  });

  it('an emoji makes the whole body UCS-2, and a surrogate pair is never split', () => {
    expect(countSegments('Hi 😀')).toEqual({ encoding: 'UCS-2', units: 5, segments: 1 });
    expect(countSegments('a'.repeat(66) + '😀' + 'a'.repeat(66)).segments).toBe(3); // 134 units, but the pair opens part 2
    expect(countSegments('a'.repeat(67) + '😀' + 'a'.repeat(65)).segments).toBe(2);
  });
});

describe('inbound_intent', () => {
  it.each([
    'stop',
    ' Stop ',
    'STOP',
    'STOPALL',
    'OPTOUT',
    'opt out',
    'Opt  Out',
    'UNSUBSCRIBE',
    'cancel',
    'END',
    'quit',
    'Revoke',
    'please stop texting me',
    'STOP!',
    'I want to opt out now',
    'end.',
    'Unsubscribe me please',
  ])('%j is stop', (body) => {
    expect(classifyKeyword(body)).toBe('stop');
    expect(intentOf(classifyKeyword(body))).toBe('stop');
  });
  it.each(['stopwatch for sale', 'thanks!', 'see you at the weekend', 'ending soon?', 'unstoppable', 'optout2'])('%j is other', (body) => {
    expect(classifyKeyword(body)).toBe('other');
  });
  it.each(['HELP', ' help', 'Info'])('%j is help', (body) => expect(classifyKeyword(body)).toBe('help'));
  it.each(['START', 'unstop', ' Start '])('%j is start, stored as other', (body) => {
    expect(classifyKeyword(body)).toBe('start');
    expect(intentOf('start')).toBe('other');
  });
  it('HELP inside a longer message is not help; "start over" is not start', () => {
    expect(classifyKeyword('can you help me')).toBe('other');
    expect(classifyKeyword('start over')).toBe('other');
  });
});

describe('status machine: monotonic, terminal delivered/failed', () => {
  const moves: [MessageStatus, MessageStatus, MessageStatus | null][] = [
    ['queued', 'sent', 'sent'],
    ['queued', 'delivered', 'delivered'],
    ['queued', 'failed', 'failed'],
    ['sent', 'delivered', 'delivered'],
    ['sent', 'failed', 'failed'],
    ['sent', 'sent', null],
    ['sent', 'queued', null],
    ['delivered', 'sent', null],
    ['delivered', 'failed', null],
    ['failed', 'delivered', null],
    ['received', 'sent', null],
  ];
  it.each(moves)('%s + %s → %s', (from, reported, to) => expect(nextStatus(from, reported)).toBe(to));
  it("a send_unknown failure (ours, not the carrier's) moves to the sent or delivered the carrier reports; nothing else does", () => {
    const unknown = { sendUnknown: true };
    expect((['queued', 'sent', 'delivered', 'failed', 'received'] as MessageStatus[]).map((r) => nextStatus('failed', r, unknown))).toEqual([
      null,
      'sent',
      'delivered',
      null,
      null,
    ]);
    expect(nextStatus('failed', 'delivered')).toBeNull();
    expect(nextStatus('delivered', 'sent', unknown)).toBeNull();
  });
  it("maps Twilio's MessageStatus values", () => {
    expect(['accepted', 'queued', 'sending', 'sent', 'delivered', 'read', 'undelivered', 'failed', 'bogus', undefined].map(statusOfCarrier)).toEqual([
      'queued',
      'queued',
      'queued',
      'sent',
      'delivered',
      'delivered',
      'failed',
      'failed',
      undefined,
      undefined,
    ]);
  });
});

describe('sending number', () => {
  const n = (over: Partial<SenderCandidate>): SenderCandidate => ({
    id: 'pnb_1',
    phone_e164: '+12125550100',
    telephony_account_id: 'tac_1',
    status: 'active',
    capabilities: ['voice', 'sms'],
    reputation_state: 'clean',
    a2p_campaign_ref: 'CMP1',
    created_at: '2026-01-01T00:00:00Z',
    ...over,
  });
  const verified = new Set(['tac_1']);
  it('needs sms, active, verified, not burned', () => {
    expect(chooseSender([n({ capabilities: ['voice'] })], verified, '+12125550111').outcome).toBe('no_sms_number');
    expect(chooseSender([n({ status: 'releasing' })], verified, '+12125550111').outcome).toBe('no_sms_number');
    expect(chooseSender([n({ reputation_state: 'burned' })], verified, '+12125550111').outcome).toBe('no_sms_number');
    expect(chooseSender([n({})], new Set(), '+12125550111').outcome).toBe('no_sms_number');
  });
  it('a US long code needs its a2p_campaign_ref; a registered number wins over an unregistered one', () => {
    expect(chooseSender([n({ a2p_campaign_ref: null })], verified, '+12125550111')).toMatchObject({
      outcome: 'a2p_registration_missing',
      number: { id: 'pnb_1' },
    });
    expect(chooseSender([n({ a2p_campaign_ref: null }), n({ id: 'pnb_2', phone_e164: '+13125550100' })], verified, '+12125550111')).toMatchObject({
      outcome: 'chosen',
      number: { id: 'pnb_2' },
    });
    expect(isUsLongCode('+12125550100')).toBe(true);
    expect(isUsLongCode('+18005550100')).toBe(false); // toll-free
    expect(isUsLongCode('+14165550100')).toBe(false); // Toronto
    expect(chooseSender([n({ phone_e164: '+18005550100', a2p_campaign_ref: null })], verified, '+12125550111').outcome).toBe('chosen');
  });
  it("prefers the call's number, then the contact's area code", () => {
    const pool = [n({ id: 'pnb_a', phone_e164: '+13125550100' }), n({ id: 'pnb_b', phone_e164: '+12125550100', created_at: '2026-02-01T00:00:00Z' })];
    expect(chooseSender(pool, verified, '+12125550111')).toMatchObject({ number: { id: 'pnb_b' } });
    expect(chooseSender(pool, verified, '+12125550111', 'pnb_a')).toMatchObject({ number: { id: 'pnb_a' } });
  });
});

describe('templates', () => {
  it('renders every variable, refuses missing and unknown ones', () => {
    const t = messageTemplate('smt_callback_confirmation')!;
    expect(renderTemplate(t, { business_name: 'Acme', when: 'tomorrow at 10' })).toEqual({
      body: 'Acme: we will call you back tomorrow at 10. Reply STOP to opt out.',
    });
    expect(renderTemplate(t, { business_name: 'Acme', extra: 'x' })).toEqual({
      problems: [
        { variable: 'when', problem: 'missing' },
        { variable: 'extra', problem: 'unknown' },
      ],
    });
  });
});

describe('compliance engine, sms channel', () => {
  const AT_NOON = new Date('2026-11-18T17:00:00Z'); // 12:00 New York
  const AT_NIGHT = new Date('2026-11-18T03:00:00Z'); // 22:00 New York
  const sms = (c: Parameters<typeof inputs>[0] = {}) => ({ ...inputs(c), channel: 'sms' as const });

  it('a suppressed number is dnc_hit, as for a call', () => {
    expect(evaluate(sms({ suppressed: true }), AT_NOON)).toMatchObject({ outcome: 'block', disposition: 'dnc_hit' });
  });
  it('consent scope channels, when given, must contain sms (and voice-only consent never covers a text)', () => {
    expect(evaluate(sms({ consents: [pewc({ scope: { purposes: [SUBJECT], channels: ['voice'] } })] }), AT_NOON)).toMatchObject({
      outcome: 'block',
      reasons: [expect.objectContaining({ code: 'consent_scope_mismatch' })],
    });
    expect(evaluate(sms({ consents: [pewc({ scope: { purposes: [SUBJECT], channels: ['sms'] } })] }), AT_NOON).outcome).toBe('allow');
    expect(evaluate(sms({ consents: [pewc({ scope: { purposes: [SUBJECT] } })] }), AT_NOON).outcome).toBe('allow');
    // The same sms-only consent does not cover a call.
    expect(evaluate(inputs({ consents: [pewc({ scope: { purposes: [SUBJECT], channels: ['sms'] } })] }), AT_NOON).outcome).toBe('block');
  });
  it('quiet hours apply to marketing texts, not informational ones', () => {
    expect(evaluate(sms({ profile: marketing }), AT_NIGHT)).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-18T13:00:00.000Z' });
    expect(evaluate(sms({ profile: informational }), AT_NIGHT).outcome).toBe('allow');
    expect(evaluate(inputs({ profile: informational }), AT_NIGHT).outcome).toBe('defer'); // a call still waits
  });
});
