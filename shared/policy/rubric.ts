/**
 * The scoring rubric frozen into each published agent version (pure). Post-call analysis
 * scores a call against the rubric of the version the call pinned; its `rubric_version`
 * is that version's id. Dimensions are the five the contract "Call detail" names.
 */
import type { Rubric } from '../schemas/agents.js';
import type { Objective } from '../schemas/templates.js';

/** Turn-latency target for the latency dimension (p95 of agent response time, ms). */
export const LATENCY_TARGET_MS = 1500;

export function buildRubric(versionId: string, objectives: Objective[]): Rubric {
  return {
    rubric_version: versionId,
    dimensions: [
      { name: 'goal_completion', floor: false, applies: 'always', criteria: objectives },
      { name: 'disclosure_given', floor: true, applies: 'always' },
      { name: 'optout_honored', floor: true, applies: 'always' },
      { name: 'pack_grounded', floor: false, applies: 'with_knowledge_pack' },
      { name: 'latency', floor: false, applies: 'always', target_ms: LATENCY_TARGET_MS },
    ],
    verdict_rule:
      'pass when both floor dimensions pass and every required goal_completion criterion is met; a failed floor dimension fails the call whatever else passed',
  };
}
