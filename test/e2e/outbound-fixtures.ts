/**
 * Outbound call fixtures for the lifecycle suites: a call record written the way POST
 * /v1/calls + dispatch leave it (same keys and fields), and the dial itself through the
 * account's provider adapter with the URLs dispatch gives the carrier.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import twilio from 'twilio';
import { db, tableName } from '../../shared/db/client.js';
import { callKeys } from '../../shared/db/keys.js';
import { newId } from '../../shared/ids.js';
import type { CallState } from '../../shared/policy/call-state/machine.js';
import { getTelephonyAccount, openSandboxCredentials } from '../../shared/repositories/telephony-accounts.js';
import { providerFor } from '../../shared/telephony/carrier-for.js';
import { publicBaseUrl } from '../../shared/telephony/endpoints.js';
import type { TestStack } from '../support/stack.js';
import { profileBody } from './agent-fixtures.js';
import { client, newTenant } from './client.js';
import { activeNumber, mockAccount } from './telephony-fixtures.js';

export const VOICEMAIL_BODY = 'We have an update about your solar quote.';

/** A tenant with a mock account, one of its numbers, and an agent published with a voicemail drop. */
export async function outboundTenant(stack: TestStack) {
  const t = await newTenant();
  const api = client(stack, t.token);
  const accountId = await mockAccount(api);
  const number = await activeNumber(api, { accountId });
  const profile = (await api('POST', '/v1/compliance-profiles', { body: profileBody() })).body;
  const agent = (
    await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
      body: {
        disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' },
        compliance_profile_id: profile.id,
        voicemail_drop: { body: { 'en-US': VOICEMAIL_BODY }, callback_number: '+14155550199' },
      },
    })
  ).body;
  const version = await api('POST', `/v1/agents/${agent.id}/publish`);
  if (version.status !== 201) throw new Error(`agent not published: ${JSON.stringify(version.body)}`);
  const account = (await getTelephonyAccount(t.tenantId, accountId))!;
  const creds = (await openSandboxCredentials(account))!;
  return { ...t, api, accountId, account, creds, number, agentId: agent.id as string, versionId: version.body.id as string };
}
export type OutboundTenant = Awaited<ReturnType<typeof outboundTenant>>;

export interface OutboundCallInput {
  to: string;
  state?: CallState;
  contactId?: string;
  questions?: { id: string; prompt: string }[];
  idempotencyKey?: string;
}

/** Writes an outbound call record (dispatch's `dialing` by default; `scheduled` for cancel tests). */
export async function putOutboundCall(s: OutboundTenant, input: OutboundCallInput): Promise<string> {
  const id = newId('cal');
  const now = new Date().toISOString();
  const state = input.state ?? 'dialing';
  const item = {
    ...callKeys.call(s.tenantId, id),
    ...callKeys.callIndex(s.tenantId, id),
    type: 'call',
    id,
    tenant_id: s.tenantId,
    direction: 'outbound',
    state,
    disposition: null,
    disposition_set_by: null,
    end_reason: null,
    from_e164: s.number.phone_e164,
    to_e164: input.to,
    phone_number_id: s.number.id,
    telephony_account_id: s.accountId,
    provider: 'mock',
    provider_call_sid: null,
    inbound: null,
    recording_url: null,
    attempt_id: newId('att'),
    contact_id: input.contactId ?? newId('con'),
    agent_id: s.agentId,
    agent_version_id: s.versionId,
    campaign_id: null,
    origin: 'api',
    questions: input.questions ?? [],
    context: {},
    compliance: {
      outcome: 'allow',
      disposition: null,
      reasons: [],
      next_permitted_at: null,
      callee: { zones: [], states: [] },
      call_purpose: 'marketing',
      evaluated_at: now,
      rule_set_version: 'test',
    },
    scheduled_for: now,
    idempotency_key: input.idempotencyKey ?? null,
    telephony: {
      provider: 'mock',
      telephony_account_id: s.accountId,
      phone_number_id: s.number.id,
      from_e164: s.number.phone_e164,
      provider_call_sid: null,
      mock: true,
    },
    dialing_at: state === 'dialing' ? now : null,
    created_at: now,
    updated_at: now,
  };
  await db().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
  return id;
}

export const outboundUrls = (callId: string) => ({
  twimlUrl: `${publicBaseUrl()}/carrier/twilio/outbound?call_id=${callId}`,
  statusCallbackUrl: `${publicBaseUrl()}/carrier/twilio/status?call_id=${callId}`,
});

/** Places the call through the sandbox carrier exactly as dispatch does (machine detection on). */
export async function dial(s: OutboundTenant, callId: string, to: string): Promise<string> {
  const provider = await providerFor(s.account);
  const { sid } = await provider.placeCall({ to, from: s.number.phone_e164, ...outboundUrls(callId), machineDetection: 'Enable', timeoutSeconds: 30 });
  return sid;
}

/** Posts a carrier callback signed with the account's auth token (path may carry a query). */
export async function signedPost(stack: TestStack, s: OutboundTenant, pathAndQuery: string, params: Record<string, string>) {
  const url = `${publicBaseUrl()}${pathAndQuery}`;
  const res = await stack.fetch(pathAndQuery, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(s.creds.auth_token, url, params) },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, text: await res.text() };
}
