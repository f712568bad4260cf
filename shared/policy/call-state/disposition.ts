/**
 * The disposition of an outbound call that a person answered and that then completed
 * (pure). The carrier decides the others itself (busy, no_answer, failed, machine →
 * voicemail_machine: shared/policy/call-state/machine.ts); for an answered call only the
 * runtime's aggregates on the call record say how it went:
 *
 *   opt-out with reason opt_out       → opt_out               (set_by agent_llm)
 *   opt-out with reason wrong_person  → wrong_person_opt_out  (set_by agent_llm)
 *   outcome.goal_reached              → completed_goal        (set_by agent_llm)
 *   a conversation (turns) otherwise  → completed_no_goal     (set_by agent_llm with an outcome, else system)
 *   no conversation at all            → answered_incomplete   (set_by carrier: the carrier's answer + hang-up are all we know)
 *
 * An opt-out wins over a reached goal: the contact asked not to be called, whatever was agreed first.
 */
import type { DispositionSetBy } from './machine.js';

export interface ConversationSummary {
  turn_count?: number | null;
  opted_out?: boolean | null;
  opt_out?: { reason: 'opt_out' | 'wrong_person' } | null;
  outcome?: { goal_reached?: boolean } | null;
}

export interface DerivedDisposition {
  disposition: 'opt_out' | 'wrong_person_opt_out' | 'completed_goal' | 'completed_no_goal' | 'answered_incomplete';
  disposition_set_by: DispositionSetBy;
}

export function completedDisposition(call: ConversationSummary): DerivedDisposition {
  if (call.opt_out) return { disposition: call.opt_out.reason === 'wrong_person' ? 'wrong_person_opt_out' : 'opt_out', disposition_set_by: 'agent_llm' };
  if (call.outcome?.goal_reached === true) return { disposition: 'completed_goal', disposition_set_by: 'agent_llm' };
  if ((call.turn_count ?? 0) > 0) return { disposition: 'completed_no_goal', disposition_set_by: call.outcome ? 'agent_llm' : 'system' };
  return { disposition: 'answered_incomplete', disposition_set_by: 'carrier' };
}
