/**
 * How an inbound call is answered, decided once from the number's route when the call
 * arrives and kept on the call record, so a replayed webhook renders the same answer.
 */

import { scheduleAt } from '../policy/answering/schedule.js';
import { listPath } from '../policy/answering/step-path.js';
import { numberIneligibility } from '../policy/number-eligibility.js';
import type { InboundRouteMode } from '../policy/telephony-states.js';
import { getAgentRecord } from '../repositories/agents.js';
import { getPolicyVersion, type StoredPolicy } from '../repositories/answering-policies.js';
import type { CallRecord } from '../repositories/calls.js';
import { getPhoneNumber, type PhoneNumberRecord } from '../repositories/phone-numbers.js';
import type { TelephonyAccountRecord } from '../repositories/telephony-accounts.js';
import { type Answer, type AnswerContext, relayToAgent, runStep, unavailable, voicemail } from '../telephony/inbound-answer.js';

export type InboundDecision = Pick<
  NonNullable<CallRecord['inbound']>,
  'route_mode' | 'policy_version' | 'schedule' | 'agent_id' | 'agent_version_id' | 'greeting'
> & { unavailable: string | null };

const none = { route_mode: null, policy_version: null, schedule: null, agent_id: null, agent_version_id: null, greeting: null } as const;
const refuse = (reason: string, route_mode: InboundRouteMode | null = null): InboundDecision => ({ ...none, route_mode, unavailable: reason });

/** Decide from the number as it is now (the To number re-resolved on every call). */
export async function decideInbound(number: PhoneNumberRecord | undefined, account: TelephonyAccountRecord, at: Date): Promise<InboundDecision> {
  if (!number || number.telephony_account_id !== account.id) return refuse('number_unknown');
  const ineligible = numberIneligibility(number, account.verification_status);
  if (ineligible.length) return refuse(ineligible[0]!, number.inbound_route_mode);
  switch (number.inbound_route_mode) {
    case 'agent': {
      const agent = number.inbound_agent_id ? await getAgentRecord(number.tenant_id, number.inbound_agent_id, true) : undefined;
      if (!agent?.latest_version_id) return refuse('no_published_agent', 'agent');
      return { ...none, route_mode: 'agent', agent_id: agent.id, agent_version_id: agent.latest_version_id, unavailable: null };
    }
    case 'voicemail':
      return { ...none, route_mode: 'voicemail', greeting: number.inbound_voicemail_greeting, unavailable: null };
    case 'policy': {
      const policy = number.policy_version ? await getPolicyVersion(number.tenant_id, number.id, number.policy_version) : undefined;
      if (!policy) return refuse('policy_missing', 'policy');
      return { ...none, route_mode: 'policy', policy_version: policy.version, schedule: scheduleAt(policy, at).list, unavailable: null };
    }
  }
}

export const numberOf = (tenantId: string, numberId: string | null) => (numberId ? getPhoneNumber(tenantId, numberId) : Promise.resolve(undefined));

/** The first answer of a call, from its stored decision. */
export function firstAnswer(ctx: AnswerContext, decision: InboundDecision, policy: StoredPolicy | undefined): Answer {
  if (decision.unavailable) return unavailable(decision.unavailable);
  if (decision.route_mode === 'agent') return relayToAgent(ctx, { agent_id: decision.agent_id!, agent_version_id: decision.agent_version_id! });
  if (decision.route_mode === 'voicemail') return voicemail(ctx, decision.greeting);
  if (!policy) return unavailable('policy_missing');
  return runStep(ctx, policy, policy.version, listPath(decision.schedule ?? 'open'));
}
