/**
 * The post-call analysis scorer (the design "Pure rule modules"): a finished call's facts and
 * the pinned agent version's rubric → `success_evaluation`. No I/O, no clock: the same
 * inputs always score the same. The rules and thresholds are in docs/decisions/call-analysis-and-outcomes.md
 * ("Post-call analysis").
 *
 * A *conversation* happened when the agent spoke at least once to other than a detected
 * machine. Without one every dimension is `not_applicable` (nothing was
 * said, so nothing could be owed, honoured or judged) and so is the verdict.
 *
 * Floors: `disclosure_given` and `optout_honored` are scored on every call whatever the
 * rubric says (a rubric cannot drop or waive them), are never `unscored`, and a failed
 * floor fails the verdict whatever else passed.
 */

import type { Rubric } from '../rubric.js';
import { LATENCY_TARGET_MS } from '../rubric.js';
import type { DimensionResult, DimensionScore, FloorDimensionScore, LatencyScore, PackGroundedScore, SuccessEvaluation, Verdict } from './evaluation.js';
import type { CallFacts, TurnFact } from './facts.js';

export { LATENCY_TARGET_MS };

/** The disclosure must be given by this agent turn (1-based): a greeting or "may I speak with…" may come first, nothing more. */
export const DISCLOSURE_LATEST_AGENT_TURN = 2;
/** After an opt-out the agent may speak this many turns, and each must close the call. */
const OPTOUT_AGENT_TURN_ALLOWANCE = 1;
/** After an opt-out the call must have ended within this long. */
export const OPTOUT_END_WITHIN_MS = 30_000;
/** Latency is judged on this percentile (nearest rank) of measured agent response latencies. */
const LATENCY_PERCENTILE = 95;
/** Dispositions by which the agent itself recorded that the goal was not reached. */
const GOAL_NOT_REACHED_DISPOSITIONS: readonly string[] = ['completed_no_goal', 'answered_incomplete'];
/** Reasons are cut to this many characters (the schema's bound). */
const MAX_REASON_LENGTH = 300;

/** What the scorer needs of a version's rubric (the stored AgentRubric fits). */
export type RubricInput = Pick<Rubric, 'rubric_version' | 'dimensions'>;

/** How many of the goal's required items were met (decides fail vs partial when the goal fails). */
type GoalProgress = 'none' | 'some' | 'all';

const score = <R extends DimensionResult>(result: R, reason: string) => ({ result, reason: clip(reason) });

const clip = (s: string) => (s.length <= MAX_REASON_LENGTH ? s : `${s.slice(0, MAX_REASON_LENGTH - 1)}…`);

const instant = (s: string | null | undefined): number | null => {
  if (typeof s !== 'string') return null;
  const v = Date.parse(s);
  return Number.isFinite(v) ? v : null;
};

const isIndex = (i: unknown, turns: readonly unknown[]): i is number => Number.isInteger(i) && (i as number) >= 0 && (i as number) < turns.length;

const agentTurnCount = (turns: readonly TurnFact[]) => turns.filter((t) => t.speaker === 'agent').length;

/**
 * Whether the call had a conversation: the agent spoke, to other than a detected machine.
 * Agent turns on a call whose `answered_by` was never recorded still count (the agent can only
 * speak on an answered call), so a gap in the record cannot turn a floor into not_applicable.
 */
function hadConversation(facts: CallFacts): boolean {
  return facts.answered_by !== 'machine' && agentTurnCount(facts.turns) > 0;
}

function noConversationReason(facts: CallFacts): string {
  if (facts.answered_by === 'machine') return 'Answered by a machine: no conversation';
  if (facts.answered_by === null) return `Never answered (${facts.disposition ?? facts.state}): no conversation`;
  return 'The agent never spoke: no conversation';
}

// ── disclosure_given (floor) ─────────────────────────────────────────────────────────────

function scoreDisclosure(facts: CallFacts, conversation: boolean): FloorDimensionScore {
  if (!conversation) return score('not_applicable', noConversationReason(facts));
  const d = facts.disclosure;
  if (!d) return score('fail', 'The agent never gave the disclosure');
  if (!isIndex(d.turn_index, facts.turns)) return score('fail', 'The reported disclosure matches no turn of this call');
  // Its agent turn: the one at turn_index, or the next agent turn when attributed to a contact turn.
  const ordinal = 1 + facts.turns.slice(0, d.turn_index).filter((t) => t.speaker === 'agent').length;
  if (ordinal > agentTurnCount(facts.turns)) return score('fail', 'The disclosure was reported after the agent last spoke');
  if (ordinal > DISCLOSURE_LATEST_AGENT_TURN)
    return score('fail', `The disclosure came late: agent turn ${ordinal}, due by turn ${DISCLOSURE_LATEST_AGENT_TURN}`);
  return score('pass', `Disclosure given in agent turn ${ordinal}`);
}

// ── optout_honored (floor) ───────────────────────────────────────────────────────────────

/** Indexes of the agent's turns after the opt-out, or null when the opt-out cannot be placed. */
function agentTurnsAfterOptOut(facts: CallFacts): number[] | null {
  const o = facts.opt_out!;
  const agentIndexes = facts.turns.flatMap((t, i) => (t.speaker === 'agent' ? [i] : []));
  if (o.turn_index !== null && isIndex(o.turn_index, facts.turns)) return agentIndexes.filter((i) => i > o.turn_index!);
  const at = instant(o.at);
  if (at === null) return null;
  // A turn whose start cannot be read is counted as after: a floor passes on evidence only.
  return agentIndexes.filter((i) => {
    const start = instant(facts.turns[i]!.started_at);
    return start === null || start >= at;
  });
}

const isClosing = (facts: CallFacts, i: number) => facts.turns[i]!.closing === true || (i === facts.turns.length - 1 && facts.ended_by === 'agent');

function scoreOptOut(facts: CallFacts, conversation: boolean): FloorDimensionScore {
  if (!conversation) return score('not_applicable', noConversationReason(facts));
  const o = facts.opt_out;
  if (!o) return score('pass', 'No opt-out was requested');
  const after = agentTurnsAfterOptOut(facts);
  if (after === null) return score('fail', 'The opt-out cannot be placed in the conversation, so it cannot be shown to be honoured');
  if (after.length > OPTOUT_AGENT_TURN_ALLOWANCE) {
    return score('fail', `The agent kept talking after the opt-out: ${after.length} turns (allowed: ${OPTOUT_AGENT_TURN_ALLOWANCE} closing acknowledgement)`);
  }
  const notClosing = after.filter((i) => !isClosing(facts, i));
  if (notClosing.length > 0) return score('fail', 'The agent carried on after the opt-out instead of closing the call');
  const [requested, ended] = [instant(o.at), instant(facts.ended_at)];
  if (requested !== null && ended !== null && ended - requested > OPTOUT_END_WITHIN_MS) {
    return score('fail', `The call went on ${Number(((ended - requested) / 1000).toFixed(3))} s after the opt-out (allowed: ${OPTOUT_END_WITHIN_MS / 1000} s)`);
  }
  return score('pass', after.length > 0 ? 'The agent acknowledged the opt-out and ended the call' : 'The call ended at the opt-out');
}

// ── goal_completion ──────────────────────────────────────────────────────────────────────

interface Item {
  source: 'objective' | 'question';
  id: string;
}

function evidenced(facts: CallFacts, item: Item): boolean {
  if (facts.recorded_responses.some((r) => r.source === item.source && r.id === item.id)) return true;
  return (
    item.source === 'objective' &&
    facts.conversation_actions.some((a) => a.objective_ids.includes(item.id) && (a.confirmation === 'confirmed' || a.confirmation === 'not_required'))
  );
}

const listItems = (items: readonly Item[]) => {
  const shown = items.slice(0, 3).map((i) => `${i.source} ${i.id}`);
  return items.length > 3 ? `${shown.join(', ')} and ${items.length - 3} more` : shown.join(', ');
};

function scoreGoal(facts: CallFacts, rubric: RubricInput, conversation: boolean): { dimension: DimensionScore; progress: GoalProgress } {
  const none = (dimension: DimensionScore) => ({ dimension, progress: 'none' as const });
  if (!conversation) return none(score('not_applicable', noConversationReason(facts)));
  const dim = rubric.dimensions.find((d) => d.name === 'goal_completion');
  if (!dim) return none(score('unscored', 'This rubric has no goal_completion dimension'));
  const items: Item[] = [
    ...(dim.criteria ?? []).filter((c) => c.required).map((c): Item => ({ source: 'objective', id: c.id })),
    ...facts.question_ids.map((id): Item => ({ source: 'question', id })),
  ];
  if (items.length === 0) return none(score('unscored', 'No required objective or question to check'));
  const missing = items.filter((i) => !evidenced(facts, i));
  const met = items.length - missing.length;
  const progress: GoalProgress = missing.length === 0 ? 'all' : met > 0 ? 'some' : 'none';
  if (missing.length === 0) {
    if (facts.disposition !== null && GOAL_NOT_REACHED_DISPOSITIONS.includes(facts.disposition)) {
      return { dimension: score('fail', `Every required item was met, but the agent ended the call as ${facts.disposition}`), progress };
    }
    const outcome = facts.outcome ? `; ${facts.outcome.kind} outcome recorded` : '';
    return { dimension: score('pass', `All ${items.length} required objectives and questions met${outcome}`), progress };
  }
  if (facts.opt_out) return { dimension: score('not_applicable', 'The contact opted out before the goal was reached'), progress };
  return { dimension: score('fail', `${met} of ${items.length} required met; missing ${listItems(missing)}`), progress };
}

// ── pack_grounded ────────────────────────────────────────────────────────────────────────

function scorePack(facts: CallFacts, rubric: RubricInput, conversation: boolean): PackGroundedScore {
  const none = (result: DimensionResult, reason: string): PackGroundedScore => ({ ...score(result, reason), claims_checked: 0 });
  if (!conversation) return none('not_applicable', noConversationReason(facts));
  if (!rubric.dimensions.some((d) => d.name === 'pack_grounded')) return none('unscored', 'This rubric has no pack_grounded dimension');
  const pack = facts.knowledge_pack;
  if (!pack) return none('not_applicable', 'The agent version has no knowledge pack');
  const packName = `${pack.id} v${pack.version}`;
  const g = facts.grounding;
  if (!g) return none('unscored', `The passages of knowledge pack ${packName} could not be read to check claims`);
  if (g.turns_using_pack === 0) return none('not_applicable', 'No agent turn used the knowledge pack');
  const n = g.claims_checked;
  if (g.unsupported.length > 0) {
    return {
      ...score('fail', `${g.unsupported.length} of ${n} claims not supported by the cited passages of knowledge pack ${packName}`),
      claims_checked: n,
      unsupported_claims: g.unsupported.slice(0, 50).map((c) => ({ turn_index: c.turn_index, text: c.text, passage_ids: [...c.passage_ids] })),
    };
  }
  return {
    ...score(
      'pass',
      n
        ? `All ${n} claims supported by the cited passages of knowledge pack ${packName}`
        : `No checkable claim in the ${g.turns_using_pack} turns that used knowledge pack ${packName}`,
    ),
    claims_checked: n,
  };
}

// ── latency ──────────────────────────────────────────────────────────────────────────────

/**
 * Agent response latencies in ms: the runtime's `latency_ms` when it reports one (finite,
 * ≥ 0); otherwise, for an agent turn right after a contact turn, its start minus that turn's
 * end (an overlap, the agent talking over the end of the contact's speech, measures 0).
 * An agent turn after another agent turn, or opening the call, answered nobody: not measured.
 */
export function responseLatencies(turns: readonly TurnFact[]): number[] {
  const out: number[] = [];
  turns.forEach((t, i) => {
    if (t.speaker !== 'agent') return;
    if (typeof t.latency_ms === 'number' && Number.isFinite(t.latency_ms) && t.latency_ms >= 0) {
      out.push(t.latency_ms);
      return;
    }
    const prev = turns[i - 1];
    if (!prev || prev.speaker !== 'contact') return;
    const [start, prevEnd] = [instant(t.started_at), instant(prev.ended_at)];
    if (start !== null && prevEnd !== null) out.push(Math.max(0, start - prevEnd));
  });
  return out;
}

/** Nearest-rank percentile: the smallest sample with at least p% of samples at or below it. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

function scoreLatency(facts: CallFacts, rubric: RubricInput, conversation: boolean): LatencyScore {
  const none = (result: DimensionResult, reason: string): LatencyScore => ({ ...score(result, reason), turns_measured: 0 });
  if (!conversation) return none('not_applicable', noConversationReason(facts));
  const dim = rubric.dimensions.find((d) => d.name === 'latency');
  if (!dim) return none('unscored', 'This rubric has no latency dimension');
  const target = dim.target_ms ?? LATENCY_TARGET_MS;
  const samples = responseLatencies(facts.turns);
  if (samples.length === 0) return none('unscored', 'No agent response to measure');
  const p = percentile(samples, LATENCY_PERCENTILE);
  const reason = `p${LATENCY_PERCENTILE} response latency ${Math.round(p)} ms over ${samples.length} responses (target ≤ ${target} ms)`;
  return { ...score(p <= target ? 'pass' : 'fail', reason), turns_measured: samples.length };
}

// ── the verdict ──────────────────────────────────────────────────────────────────────────

/**
 * fail: a floor failed (whatever else passed), or the goal failed with no required item met.
 * not_applicable: no goal to judge (no conversation; the contact opted out before it).
 * partial: the goal failed with some required items met, or it passed (or was unscored) but
 *   pack grounding or latency failed.
 * pass: the floors hold, the goal passed (or the rubric asks for none), nothing else failed.
 */
function verdictOf(dimensions: SuccessEvaluation['dimensions'], goalProgress: GoalProgress): Verdict {
  if (dimensions.disclosure_given.result === 'fail' || dimensions.optout_honored.result === 'fail') return 'fail';
  const goal = dimensions.goal_completion.result;
  if (goal === 'not_applicable') return 'not_applicable';
  if (goal === 'fail') return goalProgress === 'none' ? 'fail' : 'partial';
  if (dimensions.pack_grounded.result === 'fail' || dimensions.latency.result === 'fail') return 'partial';
  return 'pass';
}

export function scoreCall(facts: CallFacts, rubric: RubricInput): SuccessEvaluation {
  const conversation = hadConversation(facts);
  const goal = scoreGoal(facts, rubric, conversation);
  const dimensions: SuccessEvaluation['dimensions'] = {
    goal_completion: goal.dimension,
    disclosure_given: scoreDisclosure(facts, conversation),
    optout_honored: scoreOptOut(facts, conversation),
    pack_grounded: scorePack(facts, rubric, conversation),
    latency: scoreLatency(facts, rubric, conversation),
  };
  return { verdict: verdictOf(dimensions, goal.progress), rubric_version: rubric.rubric_version, dimensions };
}
