/** Telephony fixtures shared by the number, policy and carrier suites. */
import { randomInt } from 'node:crypto';
import { profileBody } from './agent-fixtures.js';
import type { client } from './client.js';

type Api = ReturnType<typeof client>;

/** A random NANP number in an area code (numbers are claimed platform-wide, so tests never share one). */
export const randomNumber = (areaCode = '415') => `+1${areaCode}${randomInt(2, 10)}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;

/** A verified mock (sandbox) telephony account. */
export async function mockAccount(api: Api, over: Record<string, unknown> = {}): Promise<string> {
  const id = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'mock', ...over } })).body.id as string;
  const verified = await api('POST', `/v1/telephony-accounts/${id}/verify`);
  if (verified.body.verification_status !== 'mock_verified') throw new Error(`mock account did not verify: ${JSON.stringify(verified.body)}`);
  return id;
}

/** An active voice number on a fresh mock account. */
export async function activeNumber(api: Api, opts: { accountId?: string; phone?: string; capabilities?: string[] } = {}) {
  const accountId = opts.accountId ?? (await mockAccount(api));
  const res = await api('POST', '/v1/phone-numbers', {
    body: { phone_e164: opts.phone ?? randomNumber(), telephony_account_id: accountId, ...(opts.capabilities ? { capabilities: opts.capabilities } : {}) },
  });
  if (res.status !== 200) throw new Error(`number not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; phone_e164: string; telephony_account_id: string; provider_sid: string };
}

/** An agent with one published version (from the SDR template, with a compliance profile). */
export async function publishedAgent(api: Api) {
  const profile = (await api('POST', '/v1/compliance-profiles', { body: profileBody() })).body;
  const agent = (
    await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
      body: { disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' }, compliance_profile_id: profile.id },
    })
  ).body;
  const version = await api('POST', `/v1/agents/${agent.id}/publish`);
  if (version.status !== 201) throw new Error(`agent not published: ${JSON.stringify(version.body)}`);
  return { agentId: agent.id as string, versionId: version.body.id as string, version: version.body.version as number };
}

/** An agent that was never published. */
export async function draftAgent(api: Api) {
  return (
    await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
      body: { disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' } },
    })
  ).body.id as string;
}
