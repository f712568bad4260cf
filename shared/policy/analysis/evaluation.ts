/**
 * Post-call analysis (the contract, Call detail: `analysis.success_evaluation`): the output of
 * the pure scorer in shared/policy/analysis/, stored verbatim on the call and rendered by the
 * call detail. The floor dimensions (`disclosure_given`, `optout_honored`) cannot be
 * `unscored` by construction of this schema, so a stored record that claims otherwise is
 * unreadable rather than shown.
 */
import * as z from 'zod';

const DIMENSION_RESULTS = ['pass', 'fail', 'not_applicable', 'unscored'] as const;
/** A compliance floor is always decided: pass, fail, or not_applicable when there was no conversation. */
const FLOOR_RESULTS = ['pass', 'fail', 'not_applicable'] as const;
const VERDICTS = ['pass', 'partial', 'fail', 'not_applicable'] as const;

export type DimensionResult = (typeof DIMENSION_RESULTS)[number];
export type Verdict = (typeof VERDICTS)[number];

const reason = z.string().min(1).max(300).describe('Why, in a short sentence a person can read');

const dimensionScore = z.object({ result: z.enum(DIMENSION_RESULTS), reason }).meta({ id: 'AnalysisDimension' });

const floorDimensionScore = z
  .object({ result: z.enum(FLOOR_RESULTS).describe('Never unscored, never waived: not_applicable only when there was no conversation'), reason })
  .meta({ id: 'AnalysisFloorDimension' });

const unsupportedClaim = z
  .object({
    turn_index: z.int().min(0).describe('The turn of the transcript (0-based, in the order spoken)'),
    text: z.string().describe('The sentence of the agent turn'),
    passage_ids: z.array(z.string()).describe('The passages that turn cited'),
  })
  .meta({ id: 'UnsupportedClaim' });

const packGroundedScore = z
  .object({
    result: z.enum(DIMENSION_RESULTS),
    reason,
    claims_checked: z.int().min(0).describe('Agent claims checked against the pinned knowledge pack'),
    unsupported_claims: z.array(unsupportedClaim).max(50).optional().describe('With fail: the claims the cited passages do not support (at most 50)'),
  })
  .meta({ id: 'AnalysisPackGrounded' });

const latencyScore = z
  .object({ result: z.enum(DIMENSION_RESULTS), reason, turns_measured: z.int().min(0).describe('Agent responses whose latency was measured') })
  .meta({ id: 'AnalysisLatency' });

export const successEvaluation = z
  .object({
    verdict: z
      .enum(VERDICTS)
      .describe(
        'fail when a floor dimension fails, whatever else passed; not_applicable when there was no goal to judge (no conversation, or the contact opted out)',
      ),
    rubric_version: z.string().min(1).describe('The agent version whose rubric scored the call'),
    dimensions: z.object({
      goal_completion: dimensionScore,
      disclosure_given: floorDimensionScore,
      optout_honored: floorDimensionScore,
      pack_grounded: packGroundedScore,
      latency: latencyScore,
    }),
  })
  .meta({ id: 'SuccessEvaluation' });

export type DimensionScore = z.infer<typeof dimensionScore>;
export type FloorDimensionScore = z.infer<typeof floorDimensionScore>;
export type PackGroundedScore = z.infer<typeof packGroundedScore>;
export type LatencyScore = z.infer<typeof latencyScore>;
export type SuccessEvaluation = z.infer<typeof successEvaluation>;
