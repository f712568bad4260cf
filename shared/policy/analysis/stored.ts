/**
 * How a success evaluation is stored on the call (pure). The stored form carries the results
 * schema version it was written with; a deployment reads only the versions it knows, so a
 * record written by a newer (or retired) scorer renders as `analysis: null` on the call
 * detail, which still answers 200, instead of a shape clients were never promised.
 *
 * Bump ANALYSIS_RESULTS_SCHEMA_VERSION when the stored shape or the meaning of a result
 * changes; keep reading an older version only if it can still be rendered faithfully.
 */
import { type SuccessEvaluation, successEvaluation } from './evaluation.js';

export const ANALYSIS_RESULTS_SCHEMA_VERSION = 1;
/** The stored versions this deployment can render. */
const READABLE_ANALYSIS_RESULTS_SCHEMA_VERSIONS: readonly number[] = [1];

export interface StoredAnalysis {
  results_schema_version: number;
  success_evaluation: SuccessEvaluation;
}

/** The item attribute to store: the evaluation, checked against the output schema (a scorer bug throws here, before anything is written). */
export function toStoredAnalysis(evaluation: SuccessEvaluation): StoredAnalysis {
  return { results_schema_version: ANALYSIS_RESULTS_SCHEMA_VERSION, success_evaluation: successEvaluation.parse(evaluation) };
}

/** The stored evaluation, or null when absent, of a version this deployment cannot read, or malformed. */
export function readStoredAnalysis(stored: unknown): SuccessEvaluation | null {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return null;
  const { results_schema_version: version, success_evaluation: evaluation } = stored as Record<string, unknown>;
  if (typeof version !== 'number' || !READABLE_ANALYSIS_RESULTS_SCHEMA_VERSIONS.includes(version)) return null;
  const parsed = successEvaluation.safeParse(evaluation);
  return parsed.success ? parsed.data : null;
}
