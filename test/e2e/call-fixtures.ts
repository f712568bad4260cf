/** Fixtures for the queue/dispatch suites: a callable informational agent, contacts, and reads of what dispatch wrote. */
import { randomUUID } from 'node:crypto';
import { QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { setClockOffsetForTests } from '../../shared/clock.js';
import { db, tableName } from '../../shared/db/client.js';
import { contactPartition, keys } from '../../shared/db/keys.js';
import { getCall } from '../../shared/repositories/calls.js';
import type { OutboundCallRecord } from '../../shared/repositories/outbound-calls.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import { profileBody } from './agent-fixtures.js';
import type { client } from './client.js';
import { activeNumber, mockAccount, randomNumber } from './telephony-fixtures.js';

type Api = ReturnType<typeof client>;

export const INFO_SUBJECT = 'appointment_reminders';
/** Wednesday 2026-11-18, 10:00 in New York: informational calls allowed. */
export const ALLOWED_AT = '2026-11-18T15:00:00.000Z';
/** Tuesday 2026-11-17, 22:00 in New York: quiet hours, deferred to the next morning. */
export const QUIET_AT = '2026-11-18T03:00:00.000Z';

/** now() reads `instant` (then runs on in real time). */
export const setClock = (instant: string | number) => setClockOffsetForTests((typeof instant === 'number' ? instant : Date.parse(instant)) - Date.now());
export const resetClock = () => setClockOffsetForTests(0);

const evidence = { artifact_type: 'web_form', artifact_ref: 'https://acme.test/forms/1', content_hash: 'a'.repeat(64) };

export interface CallWorld {
  api: Api;
  tenantId: string;
  accountId: string;
  number: { id: string; phone_e164: string; telephony_account_id: string };
  agentId: string;
  versionId: string;
}

/** `capabilities: ['sms']` gives the tenant a number that can never place a call; `template`: the agent's template (default tpl_sdr_outbound). */
export async function callWorld(
  api: Api,
  tenantId: string,
  opts: { capabilities?: string[]; template?: string; directRepIds?: string[] } = {},
): Promise<CallWorld> {
  const accountId = await mockAccount(api);
  const number = await activeNumber(api, { accountId, phone: randomNumber('212'), ...(opts.capabilities ? { capabilities: opts.capabilities } : {}) });
  const profile = (
    await api('POST', '/v1/compliance-profiles', {
      body: profileBody({ name: 'Reminders', call_purpose: 'informational', subject: INFO_SUBJECT, calling_window: undefined }),
    })
  ).body;
  const agent = (
    await api('POST', `/v1/templates/${opts.template ?? 'tpl_sdr_outbound'}/instantiate`, {
      body: {
        disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' },
        compliance_profile_id: profile.id,
        ...(opts.directRepIds ? { direct_rep_ids: opts.directRepIds } : {}),
      },
    })
  ).body;
  const version = await api('POST', `/v1/agents/${agent.id}/publish`);
  if (version.status !== 201) throw new Error(`agent not published: ${JSON.stringify(version.body)}`);
  return { api, tenantId, accountId, number, agentId: agent.id, versionId: version.body.id };
}

/** A New York contact (a sandbox test number the carrier answers) with informational consent. */
export async function newContact(api: Api, phone = randomNumber('212')): Promise<{ id: string; phone_e164: string }> {
  const res = await api('POST', '/v1/contacts', {
    body: { phone_e164: phone, consent: { consent_basis: 'pewc', captured_at: '2026-10-01T12:00:00Z', scope: { purposes: [INFO_SUBJECT] }, evidence } },
  });
  if (res.status !== 200) throw new Error(`contact not created: ${JSON.stringify(res.body)}`);
  return res.body;
}

export const queue = (api: Api, body: Record<string, unknown>, key: string = randomUUID()) =>
  api('POST', '/v1/calls', { body, headers: { 'idempotency-key': key } });

export const storedCall = async (tenantId: string, callId: string) => (await getCall(tenantId, callId)) as unknown as OutboundCallRecord;

/** The sandbox carrier's call records from `from` (what was really dialled). */
export async function sandboxCallsFrom(from: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#t = :t AND #from = :from',
        ExpressionAttributeNames: { '#t': 'type', '#from': 'from' },
        ExpressionAttributeValues: { ':t': 'sandbox_call', ':from': from },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

export async function eventsOfCall(tenantId: string, callId: string) {
  return (await listTenantEvents(tenantId)).filter((e) => e.data.call_id === callId);
}
export const typesOf = (events: { type: string }[]) => events.map((e) => e.type);

export async function attemptItem(tenantId: string, contactId: string, attemptId: string) {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk = :sk',
      ExpressionAttributeValues: { ':pk': contactPartition(tenantId, contactId), ':sk': `ATTEMPT#${attemptId}` },
      ConsistentRead: true,
    }),
  );
  return out.Items?.[0];
}

export async function attemptsOf(tenantId: string, contactId: string) {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': contactPartition(tenantId, contactId), ':p': 'ATTEMPT#' },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

export async function setCpsLimit(tenantId: string, accountId: string, cps: number) {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.telephonyAccount(tenantId, accountId),
      UpdateExpression: 'SET cps_limit = :c',
      ExpressionAttributeValues: { ':c': cps },
    }),
  );
}
