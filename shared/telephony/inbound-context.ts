/** Gathers what rendering an inbound answer needs (shared/telephony/inbound-answer.ts is pure). */

import type { PolicyDocument, PolicyStep } from '../policy/answering/model.js';
import { repRefs, walkSteps } from '../policy/answering/walk.js';
import { getAgentVersion } from '../repositories/agents.js';
import { getRep } from '../repositories/reps.js';
import { callTokenKey } from './call-token-key.js';
import { streamTokenTtlSeconds } from './call-tokens.js';
import { publicBaseUrl, voiceRuntimeRelayUrl } from './endpoints.js';
import type { AnswerContext } from './inbound-answer.js';
import { relaySpeechSettings } from './relay-settings.js';
import type { RelayAgent } from './relay-twiml.js';

/** The transfer numbers of the policy's reps that are still active (a disabled rep is never rung). */
async function repNumbersOf(tenantId: string, policy: PolicyDocument<PolicyStep> | undefined): Promise<Map<string, string>> {
  const ids = policy ? [...new Set(repRefs(policy).map((r) => r.rep_id))] : [];
  const reps = await Promise.all(ids.map((id) => getRep(tenantId, id)));
  return new Map(reps.filter((r) => r?.status === 'active' && r.transfer_number).map((r) => [r!.id, r!.transfer_number!]));
}

type KnownVersion = { id: string; definition: RelayAgent };

/** The pinned versions the answer may relay to: those already read, the named ones and every ai step's of the policy. */
async function agentsOf(
  tenantId: string,
  known: readonly KnownVersion[],
  versionIds: readonly string[],
  policy: PolicyDocument<PolicyStep> | undefined,
): Promise<Map<string, RelayAgent>> {
  const fromPolicy = policy ? [...walkSteps(policy)].flatMap(({ step }) => (step.type === 'ai' ? [step.agent_version_id] : [])) : [];
  const have = new Set(known.map((v) => v.id));
  const ids = [...new Set([...versionIds, ...fromPolicy])].filter((id) => !have.has(id));
  const read = await Promise.all(ids.map((id) => getAgentVersion(tenantId, id)));
  return new Map([...known, ...read.filter((v) => v !== undefined)].map((v) => [v.id, v.definition]));
}

export async function answerContext(input: {
  tenantId: string;
  callId: string;
  numberId: string;
  numberE164: string;
  at: Date;
  policy?: PolicyDocument<PolicyStep>;
  agentVersionIds?: readonly string[];
  agentVersions?: readonly KnownVersion[];
}): Promise<AnswerContext> {
  const [key, repNumbers, agents] = await Promise.all([
    callTokenKey(),
    repNumbersOf(input.tenantId, input.policy),
    agentsOf(input.tenantId, input.agentVersions ?? [], input.agentVersionIds ?? [], input.policy),
  ]);
  return {
    tenantId: input.tenantId,
    callId: input.callId,
    numberId: input.numberId,
    numberE164: input.numberE164,
    key,
    at: input.at,
    baseUrl: publicBaseUrl(),
    relayUrl: voiceRuntimeRelayUrl(),
    speech: relaySpeechSettings(),
    agents,
    repNumbers,
    streamTtlSeconds: streamTokenTtlSeconds(),
  };
}
