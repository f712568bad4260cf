/**
 * The outbound text service (shared/messages/send-message.ts) over the contacts, numbers,
 * accounts, suppressions and messages stores, on the in-memory table: a refusal (no consent,
 * quiet hours, a suppressed number) commits the message failed with its message.failed event
 * and never reaches the carrier; a sendable one commits queued with its sending watch (no
 * event yet), the carrier is asked once and its SID recorded; the caller's guard item refused
 * means the send was made before (AlreadySent), nothing written. The carrier is a stub.
 */
process.env.PUBLIC_BASE_URL ??= 'https://api.example.test';

import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { contactKeys } from '../../../shared/db/keys.js';
import { AlreadySent, sendMessage } from '../../../shared/messages/send-message.js';
import type { SendSmsInput } from '../../../shared/telephony/provider.js';
import { informational, marketing, pewc } from '../../support/compliance-fixtures.js';
import { ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';
import { activeSuppressionItem, dncPointerItem, phoneNumberItem, telephonyAccountItem } from '../../support/store-items.js';

const sent: SendSmsInput[] = [];
vi.mock('../../../shared/telephony/carrier-for.js', () => ({
  providerFor: async () => ({
    sendSms: async (input: SendSmsInput) => {
      sent.push(input);
      return { sid: `SM${'1'.repeat(32)}` };
    },
  }),
}));

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CONTACT = 'con_01JAAAAAAAAAAAAAAAAAAAAAAA';
const ACCOUNT = 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA';
const NUMBER = 'pnb_01JAAAAAAAAAAAAAAAAAAAAAAA';
const TO = '+12125550123';
const FROM = '+12125550999';
// 15:00 UTC is 10:00 in New York: inside every quiet-hours window.
const noon = new Date('2026-11-18T15:00:00.000Z');
// 07:00 UTC is 02:00 in New York: quiet hours.
const night = new Date('2026-11-18T07:00:00.000Z');

function world(over: { consent?: boolean; suppressed?: boolean } = {}) {
  table.put({
    ...contactKeys.contact(T, CONTACT),
    type: 'contact',
    id: CONTACT,
    tenant_id: T,
    phone_e164: TO,
    timezone: 'America/New_York',
    jurisdictions: [],
  });
  if (over.consent !== false) {
    const c = pewc({ scope: { purposes: [marketing.subject] } });
    table.put({
      ...contactKeys.consent(T, CONTACT, 'cns_01JAAAAAAAAAAAAAAAAAAAAAAA'),
      type: 'consent',
      consent_basis: c.basis,
      scope: c.scope,
      captured_at: c.captured_at,
    });
  }
  table.put(telephonyAccountItem(T, ACCOUNT, { verification_status: 'verified', ftc_san_refs: [{ san: 'SAN-1', area_codes: ['212'] }], provider: 'twilio' }));
  // A fresh National DNC snapshot of 212 that lists nobody (no exchange item under its generation).
  table.put(dncPointerItem('212', '2026-11-10', 0));
  table.put(phoneNumberItem(T, NUMBER, ACCOUNT, FROM, { capabilities: ['voice', 'sms'], a2p_campaign_ref: 'CMP-1' }));
  if (over.suppressed) table.put(activeSuppressionItem(T, TO));
}

const input = (profile = informational, extraItems?: Parameters<typeof sendMessage>[1]['extraItems']) => ({
  contactId: CONTACT,
  profile,
  profileId: null,
  body: 'Your code is 1234',
  templateId: null,
  originCallId: null,
  ...(extraItems ? { extraItems } : {}),
});

/** The transaction items of the nth TransactWriteItems sent. */
const tx = (n: number) => inputsOf(TransactWriteCommand)[n]!.TransactItems as Record<string, { Item?: Record<string, unknown> }>[];
const typesOf = (items: ReturnType<typeof tx>) => items.map((i) => (i.Put?.Item?.type as string) ?? Object.keys(i)[0]);
const events = () =>
  table.all().filter((i) => i.type === 'event') as unknown as { event: { type: string; tenant_id: string; data: Record<string, unknown> } }[];

beforeEach(() => {
  table.reset();
  sent.length = 0;
});

describe('sendMessage refusals: committed failed with message.failed, never handed to the carrier', () => {
  it('marketing without consent is blocked', async () => {
    world({ consent: false });
    const out = await sendMessage(T, input(marketing), noon);
    expect(out).toMatchObject({ status: 'failed', to_e164: TO, failure: { code: 'blocked_by_policy', next_permitted_at: null } });
    expect(sent).toHaveLength(0);
    expect(typesOf(tx(0))).toEqual(['message', 'event', 'outbox_pending']);
    expect(events().map((e) => [e.event.type, e.event.tenant_id, e.event.data.message_id])).toEqual([['message.failed', T, out.id]]);
    expect(table.all().some((i) => i.type === 'message_send_watch')).toBe(false);
  });

  it('quiet hours defer a marketing text: failed `deferred` with next_permitted_at, not held', async () => {
    world();
    const out = await sendMessage(T, input(marketing), night);
    expect(out.status).toBe('failed');
    expect(out.failure).toMatchObject({ code: 'deferred' });
    expect(Date.parse(out.failure!.next_permitted_at!)).toBeGreaterThan(night.getTime());
    expect(sent).toHaveLength(0);
    expect(events().map((e) => e.event.type)).toEqual(['message.failed']);
  });

  it('a suppressed number is blocked whatever the consent', async () => {
    world({ suppressed: true });
    const out = await sendMessage(T, input(marketing), noon);
    expect(out).toMatchObject({ status: 'failed', failure: { code: 'dnc_hit' } });
    expect(sent).toHaveLength(0);
    expect(events().map((e) => e.event.type)).toEqual(['message.failed']);
  });
});

describe('sendMessage of a sendable text', () => {
  it('commits queued with its sending watch and the caller’s items (no event yet), asks the carrier once, records the SID', async () => {
    world();
    const guard = { Put: { TableName: 't', Item: { pk: `${T}#GUARD`, sk: 'act-1', type: 'guard' }, ConditionExpression: 'attribute_not_exists(pk)' } };
    // The SID's write is an Update (a conditional status move): applied by hand here.
    const updates: Record<string, unknown>[] = [];
    ddb.on(TransactWriteCommand).callsFake(async (i) => {
      // biome-ignore lint/suspicious/noExplicitAny: the transaction's item shapes
      for (const t of i.TransactItems as any[]) {
        if (t.Put) table.put(t.Put.Item);
        if (t.Delete) table.remove(t.Delete.Key);
        if (t.Update) updates.push(t.Update);
      }
      return {};
    });
    const out = await sendMessage(
      T,
      input(informational, () => [guard]),
      noon,
    );
    expect(out).toMatchObject({ status: 'queued', from_e164: FROM, to_e164: TO, failure: null });
    expect(typesOf(tx(0))).toEqual(['message', 'message_send_watch', 'guard']);
    expect(tx(0)[0]!.Put!.Item).toMatchObject({ send_watch_at: noon.toISOString(), created_at: noon.toISOString(), tenant_id: T });
    expect(sent).toEqual([
      { to: TO, from: FROM, body: 'Your code is 1234', statusCallbackUrl: `https://api.example.test/carrier/twilio/message-status?message_id=${out.id}` },
    ]);
    // The SID is linked to this message, and the watch goes with it.
    expect(JSON.stringify(updates)).toContain(`SM${'1'.repeat(32)}`);
    expect(typesOf(tx(1))).toContain('Delete');
    expect(events()).toEqual([]);
  });

  it('the caller’s guard refused: AlreadySent, nothing written, the carrier not asked', async () => {
    world();
    table.put({ pk: `${T}#GUARD`, sk: 'act-1', type: 'guard' });
    const guard = { Put: { TableName: 't', Item: { pk: `${T}#GUARD`, sk: 'act-1', type: 'guard' }, ConditionExpression: 'attribute_not_exists(pk)' } };
    await expect(
      sendMessage(
        T,
        input(informational, () => [guard]),
        noon,
      ),
    ).rejects.toBeInstanceOf(AlreadySent);
    expect(sent).toHaveLength(0);
    expect(table.all().filter((i) => i.type === 'message')).toEqual([]);
  });

  it('an unknown contact sends nothing', async () => {
    world();
    await expect(sendMessage(T, { ...input(), contactId: 'con_01JZZZZZZZZZZZZZZZZZZZZZZZ' }, noon)).rejects.toThrow();
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
  });
});
