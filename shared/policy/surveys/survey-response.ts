/**
 * The SurveyResponse a finished call produces, pure (the analysis worker stores it once).
 *
 * Survey questions: the call's per-call `questions` (all required: the request has no
 * optional flag) and, for an agent version whose use case is `survey`, its objectives
 * (required as the version says). No survey question → no response.
 *
 * answers[question_id] = { value, answered_at } and, for a question with `scoring.mapping`,
 * `score` (the mapped points; null when the value maps to nothing), `points` (the scale) and
 * `weight` (default 1). The value is the last recorded_response for the question, else the
 * value a record_survey_answer action gave.
 *
 * completion_status: `declined` only when the callee refused (an opt-out, or a
 * record_survey_answer with declined: true); `complete` when every required question is
 * answered; `partial` otherwise — including a conversation in which nothing was answered but
 * nothing was refused either (the callee hung up, the line dropped): silence is not a
 * refusal. A call nobody answered (no runtime events) produces no response: there was no
 * survey.
 */
export const COMPLETION_STATUSES = ['complete', 'partial', 'declined'] as const;
type CompletionStatus = (typeof COMPLETION_STATUSES)[number];

interface SurveyQuestion {
  id: string;
  required: boolean;
  scoring?: { points?: number; mapping?: Record<string, number>; weight?: number } | null;
}

interface SurveyAnswer {
  value: string;
  answered_at: string | null;
  score?: number | null;
  points?: number;
  weight?: number;
}

export interface SurveyCallFacts {
  questions: readonly { id: string; scoring?: SurveyQuestion['scoring'] }[];
  version: { use_case: string; objectives: readonly { id: string; required: boolean }[] } | null;
  event_count: number;
  opted_out: boolean;
  recorded_responses: readonly { question_id: string; value: string; at: string }[];
  conversation_actions: readonly { kind: string; arguments: Record<string, unknown>; at: string }[];
}

export interface BuiltSurvey {
  answers: Record<string, SurveyAnswer>;
  completion_status: CompletionStatus;
  /** Weighted mean of the scored answers as a share of their scales (0–1, 4 decimals); null when none is scored. */
  score: number | null;
}

export function surveyQuestions(f: Pick<SurveyCallFacts, 'questions' | 'version'>): SurveyQuestion[] {
  const out: SurveyQuestion[] = f.questions.map((q) => ({ id: q.id, required: true, scoring: q.scoring ?? null }));
  if (f.version?.use_case === 'survey') for (const o of f.version.objectives) if (!out.some((q) => q.id === o.id)) out.push({ id: o.id, required: o.required });
  return out;
}

function mappedScore(mapping: Record<string, number>, value: string): number | null {
  if (value in mapping) return mapping[value]!;
  const lower = value.trim().toLowerCase();
  const hit = Object.keys(mapping).find((k) => k.trim().toLowerCase() === lower);
  return hit === undefined ? null : mapping[hit]!;
}

export function buildSurveyResponse(f: SurveyCallFacts): BuiltSurvey | null {
  const questions = surveyQuestions(f);
  if (questions.length === 0 || f.event_count === 0) return null;
  const surveyActions = f.conversation_actions.filter((a) => a.kind === 'record_survey_answer');
  const answers: Record<string, SurveyAnswer> = {};
  let weighted = 0;
  let weights = 0;
  for (const q of questions) {
    const recorded = [...f.recorded_responses].reverse().find((r) => r.question_id === q.id && r.value.trim() !== '');
    let value = recorded?.value;
    let at = recorded?.at ?? null;
    if (value === undefined) {
      for (const a of [...surveyActions].reverse()) {
        const v = (a.arguments.answers as Record<string, unknown> | undefined)?.[q.id];
        if ((typeof v === 'string' && v.trim() !== '') || typeof v === 'number') {
          value = String(v);
          at = a.at;
          break;
        }
      }
    }
    if (value === undefined) continue;
    const answer: SurveyAnswer = { value, answered_at: at };
    if (q.scoring?.mapping) {
      answer.score = mappedScore(q.scoring.mapping, value);
      answer.weight = q.scoring.weight ?? 1;
      if (q.scoring.points !== undefined) answer.points = q.scoring.points;
      if (answer.score !== null && q.scoring.points) {
        weighted += (answer.score / q.scoring.points) * answer.weight;
        weights += answer.weight;
      }
    }
    answers[q.id] = answer;
  }
  const declinedByAction = surveyActions.some((a) => a.arguments.declined === true);
  const answeredCount = Object.keys(answers).length;
  const completion_status: CompletionStatus =
    f.opted_out || declinedByAction ? 'declined' : answeredCount > 0 && questions.every((q) => !q.required || q.id in answers) ? 'complete' : 'partial';
  return { answers, completion_status, score: weights ? Math.round((weighted / weights) * 10_000) / 10_000 : null };
}
