/**
 * An inbound receptionist world for e2e tests: a tenant whose sandbox number answers with a
 * published agent, a way to post to our carrier routes as the carrier (signed as Twilio signs),
 * and `ring()`, which places an inbound call and returns the Stream token our TwiML handed the
 * voice runtime, ready for runtime events.
 */
import { randomBytes } from 'node:crypto';
import twilio from 'twilio';
import { getCallBySid } from '../../shared/repositories/calls.js';
import { getTelephonyAccount, openSandboxCredentials } from '../../shared/repositories/telephony-accounts.js';
import { readTwiml } from '../../shared/sandbox/twiml-reader.js';
import type { TestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';
import { activeNumber, mockAccount, publishedAgent, randomNumber } from './telephony-fixtures.js';

export const newCallSid = (): string => `CA${randomBytes(16).toString('hex')}`;

export async function agentNumberWorld(stack: TestStack, opts: { capabilities?: string[] } = {}) {
  const t = await newTenant();
  const api = client(stack, t.token);
  const accountId = await mockAccount(api);
  const number = await activeNumber(api, { accountId, ...(opts.capabilities ? { capabilities: opts.capabilities } : {}) });
  const agent = await publishedAgent(api);
  await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_agent_id: agent.agentId } });
  const creds = (await openSandboxCredentials((await getTelephonyAccount(t.tenantId, accountId))!))!;
  /** A signed form POST to one of our carrier routes, as the carrier makes it. */
  const carrier = async (path: string, params: Record<string, string>) => {
    const url = `${stack.baseUrl}${path}`;
    const res = await stack.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(creds.auth_token, url, params) },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, text: await res.text() };
  };
  /** An inbound call from `from`: its CallSid, the carrier's parameters, our TwiML, the stored call and the runtime's Stream token. */
  const ring = async (from = randomNumber('212'), sid = newCallSid()) => {
    const params = { AccountSid: creds.account_sid, CallSid: sid, From: from, To: number.phone_e164, CallStatus: 'ringing', Direction: 'inbound' };
    const twiml = (await carrier('/carrier/twilio/voice', params)).text;
    const [connect] = readTwiml(twiml);
    const token = (connect as { parameters?: Record<string, string> } | undefined)?.parameters?.token;
    return { sid, from, params, twiml, token, call: (await getCallBySid(sid))! };
  };
  return { ...t, api, accountId, number, agent, creds, carrier, ring };
}
