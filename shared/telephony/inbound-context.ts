/** Gathers what rendering an inbound answer needs (shared/telephony/inbound-answer.ts is pure). */
import { repRefs } from '../policy/answering/walk.js';
import type { PolicyDocument, PolicyStep } from '../policy/answering/model.js';
import { getRep } from '../repositories/reps.js';
import type { AnswerContext } from './inbound-answer.js';
import { callTokenKey } from './call-token-key.js';
import { streamTokenTtlSeconds } from './call-tokens.js';
import { publicBaseUrl, voiceRuntimeStreamUrl } from './endpoints.js';

/** The transfer numbers of the policy's reps that are still active (a disabled rep is never rung). */
async function repNumbersOf(tenantId: string, policy: PolicyDocument<PolicyStep> | undefined): Promise<Map<string, string>> {
  const ids = policy ? [...new Set(repRefs(policy).map((r) => r.rep_id))] : [];
  const reps = await Promise.all(ids.map((id) => getRep(tenantId, id)));
  return new Map(reps.filter((r) => r?.status === 'active' && r.transfer_number).map((r) => [r!.id, r!.transfer_number!]));
}

export async function answerContext(input: { tenantId: string; callId: string; numberId: string; numberE164: string; at: Date; policy?: PolicyDocument<PolicyStep> }): Promise<AnswerContext> {
  const [key, repNumbers] = await Promise.all([callTokenKey(), repNumbersOf(input.tenantId, input.policy)]);
  return { tenantId: input.tenantId, callId: input.callId, numberId: input.numberId, numberE164: input.numberE164, key, at: input.at, baseUrl: publicBaseUrl(), streamUrl: voiceRuntimeStreamUrl(), repNumbers, streamTtlSeconds: streamTokenTtlSeconds() };
}
