/**
 * Post-call analysis of one call (the call-analysis worker's work): read the call and its
 * EVENT items, map them to CallFacts (call-facts.ts), score them with the pinned version's
 * rubric (shared/policy/analysis, pure) and store the result once, with call.analysis_ready
 * in the same transaction (which also deletes the call's analysis watch). Idempotent: a call
 * already analysed, or not yet ended, is left as it is, so the message may be redelivered or
 * re-sent by the scheduler (analysis-resend.ts).
 */
import { now } from '../clock.js';
import { dispatchKeys } from '../db/keys.js';
import { knowledgeFacts } from '../knowledge/grounding.js';
import { scoreCall, toStoredAnalysis } from '../policy/analysis/index.js';
import { completedDisposition } from '../policy/call-state/disposition.js';
import { isTerminal } from '../policy/call-state/machine.js';
import { getAgentVersion } from '../repositories/agents.js';
import { storeAnalysis } from '../repositories/call-lifecycle.js';
import { dropWatch } from '../repositories/call-watches.js';
import { getCall } from '../repositories/calls.js';
import { callEventRecords } from '../repositories/runtime-events.js';
import { surveyResponseItems } from '../repositories/survey-responses.js';
import type { CallRecordWithEvents } from '../schemas/call-aggregates.js';
import { callFactsOf, type StoredCallEvent } from './call-facts.js';

export type AnalyzeOutcome = 'stored' | 'already_analyzed' | 'not_ended' | 'no_call' | 'no_version';

async function callEventItems(tenantId: string, callId: string): Promise<StoredCallEvent[]> {
  return (await callEventRecords(tenantId, callId)).map((item) => ({
    event_id: item.event_id as string,
    event_type: item.event_type as string,
    seq: item.seq as number,
    event: (item.event ?? {}) as Record<string, unknown>,
  }));
}

/**
 * The runtime may report its last batch (outcome, opt-out, hang-up) after the carrier's final
 * callback set the disposition from what it had so far. Analysis runs after both (its message
 * is delayed: ANALYSIS_DELAY_SECONDS), so it re-derives the disposition of a completed
 * outbound call once from the final aggregates and corrects it with the analysis.
 */
function settledDisposition(call: CallRecordWithEvents): { disposition: string; disposition_set_by: string } | null {
  if (call.direction !== 'outbound' || call.state !== 'completed' || call.disposition_set_by === 'compliance') return null;
  const derived = completedDisposition(call);
  return derived.disposition === call.disposition && derived.disposition_set_by === call.disposition_set_by ? null : derived;
}

export async function analyzeCall(tenantId: string, callId: string, at = now()): Promise<AnalyzeOutcome> {
  const call = (await getCall(tenantId, callId)) as CallRecordWithEvents | undefined;
  if (!call) return 'no_call';
  if (call.analysis !== undefined) return 'already_analyzed';
  if (!isTerminal(call.state)) return 'not_ended';
  const versionId = call.agent_version_id ?? call.inbound?.agent_version_id ?? null;
  const version = versionId ? await getAgentVersion(tenantId, versionId) : undefined;
  if (!version) {
    // Nothing to score it against, ever: the re-send safety net has nothing to wait for.
    if (call.analysis_watch_at) await dropWatch(dispatchKeys.analysis(call.analysis_watch_at, tenantId, callId));
    return 'no_version';
  }
  const settle = settledDisposition(call);
  const base = callFactsOf(
    settle ? { ...call, ...(settle as Pick<CallRecordWithEvents, 'disposition' | 'disposition_set_by'>) } : call,
    await callEventItems(tenantId, callId),
  );
  // What the agent was configured to say (its business, its disclosure) is never an ungrounded claim.
  const known = Object.values(version.definition.disclosure_config ?? {}).filter((v): v is string => typeof v === 'string');
  const facts = {
    ...base,
    ...(await knowledgeFacts(
      tenantId,
      { id: version.definition.knowledge_pack_id ?? null, version: version.definition.knowledge_pack_version ?? null },
      base.turns,
      known,
    )),
  };
  const evaluation = scoreCall(facts, version.rubric);
  const stored = toStoredAnalysis(evaluation);
  // The survey response the call produced (if it asked survey questions) commits with the analysis: once.
  const survey = surveyResponseItems(
    call,
    versionId!,
    {
      questions: (call as { questions?: [] }).questions ?? [],
      version: { use_case: version.definition.use_case, objectives: version.objectives },
      event_count: call.event_count ?? 0,
      opted_out: call.opted_out ?? false,
      recorded_responses: call.recorded_responses ?? [],
      conversation_actions: call.conversation_actions ?? [],
    },
    at,
  );
  const done = await storeAnalysis(
    call,
    stored as unknown as Record<string, unknown>,
    { verdict: evaluation.verdict, rubric_version: evaluation.rubric_version },
    at,
    settle ?? undefined,
    survey,
  );
  return done ? 'stored' : 'already_analyzed';
}
