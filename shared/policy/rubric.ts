/**
 * The scoring rubric frozen into each published agent version (pure). Post-call analysis
 * scores a call against the rubric of the version the call pinned; its `rubric_version`
 * is that version's id. Dimensions are the five the contract "Call detail" names.
 */
import * as z from 'zod';

/** Turn-latency target for the latency dimension (p95 of agent response time, ms). */
export const LATENCY_TARGET_MS = 1500;

export const objective = z.object({ id: z.string(), description: z.string(), required: z.boolean() }).meta({ id: 'TemplateObjective' });

export type Objective = z.infer<typeof objective>;

const rubricDimension = z.object({
  name: z.enum(['goal_completion', 'disclosure_given', 'optout_honored', 'pack_grounded', 'latency']),
  floor: z.boolean().describe('A compliance floor dimension: scored on every call, never waivable, never unscored'),
  applies: z.enum(['always', 'with_knowledge_pack']),
  criteria: z.array(objective).optional(),
  target_ms: z.int().optional(),
});

export const rubric = z
  .object({
    rubric_version: z.string().describe('The agent version id: what a call analysis names as rubric_version'),
    dimensions: z.array(rubricDimension),
    verdict_rule: z.string(),
  })
  .meta({ id: 'AgentRubric' });

export type Rubric = z.infer<typeof rubric>;

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
