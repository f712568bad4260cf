/** Post-call analysis, pure: facts of a finished call + the pinned rubric → success_evaluation, and its stored form. */
export type { CallFacts, ClaimFact, ConversationActionFact, DisclosureFact, KnowledgePackFact, OptOutFact, OutcomeFact, RecordedResponseFact, Speaker, TurnFact } from './facts.js';
export {
  DISCLOSURE_LATEST_AGENT_TURN,
  GOAL_NOT_REACHED_DISPOSITIONS,
  LATENCY_PERCENTILE,
  LATENCY_TARGET_MS,
  MAX_REASON_LENGTH,
  OPTOUT_AGENT_TURN_ALLOWANCE,
  OPTOUT_END_WITHIN_MS,
  hadConversation,
  percentile,
  responseLatencies,
  scoreCall,
  verdictOf,
  type GoalProgress,
  type RubricInput,
} from './score.js';
export { ANALYSIS_RESULTS_SCHEMA_VERSION, READABLE_ANALYSIS_RESULTS_SCHEMA_VERSIONS, readStoredAnalysis, toStoredAnalysis, type StoredAnalysis } from './stored.js';
export type { SuccessEvaluation, Verdict, DimensionResult } from '../../schemas/analysis.js';
