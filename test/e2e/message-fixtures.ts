/** Fixtures for the messages suites: a tenant that can text, signed carrier posts, the sandbox's own records. */
import { randomBytes, randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import twilio from 'twilio';
import { db, tableName } from '../../shared/db/client.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import { getTelephonyAccount, openSandboxCredentials } from '../../shared/repositories/telephony-accounts.js';
import { repliesOf } from '../../shared/sandbox/inbound-message.js';
import { readTwiml } from '../../shared/sandbox/twiml-reader.js';
import type { TestStack } from '../support/stack.js';
import { profileBody } from './agent-fixtures.js';
import { INFO_SUBJECT } from './call-fixtures.js';
import { client, newTenant } from './client.js';
import { mockAccount, randomNumber } from './telephony-fixtures.js';

type Api = ReturnType<typeof client>;
export const evidence = { artifact_type: 'web_form', artifact_ref: 'https://acme.test/forms/1', content_hash: 'a'.repeat(64) };
export const newMessageSid = () => `SM${randomBytes(16).toString('hex')}`;

/** A tenant with a mock account (SAN for 212), a 212 number with sms and a 10DLC campaign, an informational and a marketing profile, and an informational agent (appointment reminder: its tools include send_sms) answering the number. */
export async function textingTenant(stack: TestStack, name = 'Texts') {
  const t = await newTenant(name);
  const api = client(stack, t.token);
  const accountId = await mockAccount(api, { ftc_san_refs: [{ san: 'SAN-TXT', area_codes: ['212'] }] });
  const res = await api('POST', '/v1/phone-numbers', {
    body: { phone_e164: randomNumber('212'), telephony_account_id: accountId, capabilities: ['voice', 'sms'], a2p_campaign_ref: 'CMP-TEXTS-1' },
  });
  if (res.status !== 200) throw new Error(`number not created: ${JSON.stringify(res.body)}`);
  const number = res.body as { id: string; phone_e164: string };
  const info = (
    await api('POST', '/v1/compliance-profiles', {
      body: profileBody({ name: 'Reminders', call_purpose: 'informational', subject: INFO_SUBJECT, calling_window: undefined }),
    })
  ).body;
  const marketing = (
    await api('POST', '/v1/compliance-profiles', {
      body: profileBody({ name: 'Offers', call_purpose: 'marketing', subject: INFO_SUBJECT, calling_window: undefined }),
    })
  ).body;
  const agent = (
    await api('POST', '/v1/templates/tpl_reminder_appointment/instantiate', {
      body: { disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' }, compliance_profile_id: info.id },
    })
  ).body;
  const version = await api('POST', `/v1/agents/${agent.id}/publish`);
  if (version.status !== 201) throw new Error(`agent not published: ${JSON.stringify(version.body)}`);
  await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_agent_id: agent.id } });
  const creds = (await openSandboxCredentials((await getTelephonyAccount(t.tenantId, accountId))!))!;

  /** A carrier POST signed with the account's token (or `signature` as given). */
  const carrier = async (path: string, params: Record<string, string>, signature?: string) => {
    const res = await stack.fetch(path, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature(creds.auth_token, `${stack.baseUrl}${path}`, params),
      },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, text: await res.text() };
  };
  /** A text from `from` to our number, as the carrier posts it; what the platform answered. */
  const textIn = async (from: string, body: string, sid = newMessageSid(), signature?: string) => {
    const res = await carrier(
      '/carrier/twilio/message',
      { AccountSid: creds.account_sid, MessageSid: sid, SmsSid: sid, From: from, To: number.phone_e164, Body: body, NumMedia: '0', SmsStatus: 'received' },
      signature,
    );
    return { ...res, sid, replies: res.status === 200 ? repliesOf(res.text) : [] };
  };
  const contact = async (phone = randomNumber('212'), scope: Record<string, unknown> = { purposes: [INFO_SUBJECT] }) => {
    const c = await api('POST', '/v1/contacts', {
      body: { phone_e164: phone, consent: { consent_basis: 'pewc', captured_at: '2026-10-01T12:00:00Z', scope, evidence } },
    });
    if (c.status !== 200) throw new Error(`contact not created: ${JSON.stringify(c.body)}`);
    return c.body as { id: string; phone_e164: string };
  };
  const send = (body: Record<string, unknown>, key: string = randomUUID()) => api('POST', '/v1/messages', { body, headers: { 'idempotency-key': key } });
  return {
    ...t,
    api,
    accountId,
    number,
    info,
    marketing,
    agentId: agent.id as string,
    versionId: version.body.id as string,
    creds,
    carrier,
    textIn,
    contact,
    send,
  };
}
export type TextingTenant = Awaited<ReturnType<typeof textingTenant>>;

/** The sandbox carrier's message records sent from `from` (what really reached the carrier). */
export async function sandboxMessagesFrom(from: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#t = :t AND #from = :from',
        ExpressionAttributeNames: { '#t': 'type', '#from': 'from' },
        ExpressionAttributeValues: { ':t': 'sandbox_message', ':from': from },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

export const eventsOfMessage = async (tenantId: string, messageId: string) => (await listTenantEvents(tenantId)).filter((e) => e.data.message_id === messageId);

export { type Api, readTwiml };
