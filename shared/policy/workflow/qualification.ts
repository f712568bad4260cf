/**
 * Qualification outcomes (record_qualification) and their fit reviews, pure.
 *
 * A `record_qualification` conversation action creates a workflow outcome (`wfo_…`, the
 * receipt id) holding the answers, at revision 1. A later record_qualification on the same
 * call whose arguments name `amends: <earlier action_id>` amends that outcome's answers
 * (revision + 1). Every saved fit review also bumps the revision, so two reviewers who saw
 * the same revision cannot both write (the repository's condition on `revision`).
 */
export const FIT_DECISIONS = ['good_fit', 'poor_fit', 'needs_more_info'] as const;
export type FitDecision = (typeof FIT_DECISIONS)[number];
export const FIT_REASON_MAX_CHARS = 2000;
/** How much of a review's reason the call detail shows (reason_truncated says when it is cut). */
const FIT_REASON_SHOWN_CHARS = 280;

export interface QualificationAnswers {
  answers: Record<string, string>;
  qualified: boolean | null;
  amends: string | null;
}

/** What a record_qualification action's arguments say (unknown shapes read as no answers). */
export function readQualification(args: Record<string, unknown>): QualificationAnswers {
  const answers: Record<string, string> = {};
  const raw = args.answers;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>))
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') answers[k] = String(v);
  }
  return { answers, qualified: typeof args.qualified === 'boolean' ? args.qualified : null, amends: typeof args.amends === 'string' ? args.amends : null };
}

export interface StoredReview {
  id: string;
  decision: FitDecision;
  reason: string;
  revision: number;
  reviewer_ref: string;
  created_at: string;
}

export interface QualificationOutcome {
  id: string;
  call_id: string;
  action_id: string;
  revision: number;
  answers: Record<string, string>;
  qualified: boolean | null;
  /** The question ids the call asked (its per-call questions), for coverage. */
  question_ids: string[];
  latest_review: StoredReview | null;
  created_at: string;
  updated_at: string;
}

/**
 * Whether the latest review still judges the current answers. A saved review is made against
 * revision r and leaves the outcome at r + 1; anything above that is an amendment of the
 * answers after the review, which the review never saw.
 */
const reviewIsCurrent = (o: Pick<QualificationOutcome, 'revision' | 'latest_review'>): boolean =>
  o.latest_review !== null && o.revision === o.latest_review.revision + 1;

/**
 * The call detail's view of one outcome (qualification_reviews[receipt id]). `fit_review.status`
 * is the latest decision while that review is current, else `unreviewed` — also when the
 * answers were amended after the review (stale): `latest_review` (and its reason) stay shown,
 * with its `revision` below the outcome's, so the staff see what was decided and that the
 * answers have moved on since.
 */
export function qualificationView(o: QualificationOutcome) {
  // The call’s own questions in their order; else the answered ids, sorted (a stored map keeps no order).
  const asked = o.question_ids.length ? o.question_ids : Object.keys(o.answers).sort();
  const reason = o.latest_review ? Array.from(o.latest_review.reason) : [];
  return {
    action_id: o.action_id,
    revision: o.revision,
    answers: o.answers,
    qualified: o.qualified,
    fit_review: {
      status: o.latest_review && reviewIsCurrent(o) ? o.latest_review.decision : 'unreviewed',
      reason: o.latest_review ? reason.slice(0, FIT_REASON_SHOWN_CHARS).join('') : null,
      reason_truncated: reason.length > FIT_REASON_SHOWN_CHARS,
      latest_review: o.latest_review
        ? {
            id: o.latest_review.id,
            decision: o.latest_review.decision,
            revision: o.latest_review.revision,
            reviewer_ref: o.latest_review.reviewer_ref,
            created_at: o.latest_review.created_at,
          }
        : null,
    },
    qualification_coverage: {
      status: asked.length ? 'available' : 'unavailable',
      questions: asked.map((question_id) => ({ question_id, answer_status: (o.answers[question_id] ?? '').trim() ? 'answered' : 'unanswered' })),
    },
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
}

/** A recorded response's fit_review: that of the newest outcome that covers its question, else unreviewed. */
export function responseFitReview(questionId: string, outcomes: readonly QualificationOutcome[]) {
  const covering = [...outcomes].reverse().find((o) => o.question_ids.includes(questionId) || questionId in o.answers);
  if (!covering) return { status: 'unreviewed', reason_truncated: false, latest_review: null };
  const v = qualificationView(covering).fit_review;
  return { status: v.status, reason_truncated: v.reason_truncated, latest_review: v.latest_review ? { decision: v.latest_review.decision } : null };
}
