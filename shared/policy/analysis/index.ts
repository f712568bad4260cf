/** Post-call analysis, pure: facts of a finished call + the pinned rubric → success_evaluation, and its stored form. */

export type { SuccessEvaluation } from './evaluation.js';
export type { CallFacts, TurnFact } from './facts.js';
export {
  DISCLOSURE_LATEST_AGENT_TURN,
  LATENCY_TARGET_MS,
  OPTOUT_END_WITHIN_MS,
  percentile,
  type RubricInput,
  responseLatencies,
  scoreCall,
} from './score.js';
export { ANALYSIS_RESULTS_SCHEMA_VERSION, readStoredAnalysis, toStoredAnalysis } from './stored.js';
