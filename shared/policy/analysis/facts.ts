/**
 * What a finished call tells the analysis scorer: only what the carrier, the platform and
 * the voice runtime can actually report. The analysis worker gathers these from the stored
 * call record and the runtime's events (POST /runtime/v1/calls/{call_id}/events); the scorer
 * (score.ts) is a pure function of them and the pinned version's rubric.
 *
 * Turn indexes everywhere are positions in `turns` (0-based), in the order spoken.
 * Instants are ISO 8601 strings as stored; nothing here reads a clock.
 */
import type { CallState } from '../call-state/machine.js';

type Speaker = 'agent' | 'contact';

/** One utterance, as the runtime reports it (a `turn` event). */
export interface TurnFact {
  speaker: Speaker;
  /** What was said (the transcript of the turn). Not interpreted by the scorer. */
  text: string;
  /** When the speaker started and stopped speaking. Unparseable instants make the turn unmeasurable, not invalid. */
  started_at: string;
  ended_at: string;
  /**
   * Agent turns only, optional: the runtime's own measure of how long the contact waited
   * for this response (end of the contact's speech to the agent's first audio), in ms.
   * When absent, the scorer measures `started_at` minus the preceding contact turn's `ended_at`.
   */
  latency_ms?: number | null;
  /**
   * Agent turns only, optional: the runtime spoke this turn as it ended the call (it issued
   * `end_call` / hang-up with it). A turn that is the call's last and after which the agent
   * hung up (`ended_by: 'agent'`) counts as closing even without this flag.
   */
  closing?: boolean;
  /** Agent turns only, optional: the knowledge-pack passages the turn relied on (the runtime reports them). */
  passage_ids?: readonly string[];
}

/** The disclosure the runtime reports having given (a `disclosure` event). */
interface DisclosureFact {
  /** The agent turn that carried it (the worker attributes the event to the next agent turn in sequence). */
  turn_index: number;
}

/** The contact's first request not to be called (an `opt_out` event; "stop calling me", wrong person). */
interface OptOutFact {
  /** When it was requested (the event's instant). */
  at: string;
  /** The contact turn it was said in, when the runtime attributes it; otherwise turns are placed by `at`. */
  turn_index: number | null;
  reason: 'do_not_call' | 'wrong_person';
}

/** A structured outcome recorded through the agent's tools (e.g. `shift_confirmation`, `appointment`). */
interface OutcomeFact {
  kind: string;
  payload: Record<string, unknown>;
}

/** A conversation action (a tool the agent used during the call) and its confirmation. */
export interface ConversationActionFact {
  /** The tool, e.g. `book_meeting`, `confirm_shift`, `record_optout`. */
  kind: string;
  /**
   * `confirmed`: the contact confirmed it; `declined`: the contact refused it; `missing`: it
   * needed a confirmation that was never given; `not_required`: it needs none.
   */
  confirmation: 'confirmed' | 'declined' | 'missing' | 'not_required';
  /** Objectives of the pinned version this action accomplishes, as the runtime attributes them (often none). */
  objective_ids: readonly string[];
}

/** A response the runtime recorded (a `response` event): an answer to an objective or a call question. */
interface RecordedResponseFact {
  source: 'objective' | 'question';
  /** The objective id (pinned version) or the call question id. */
  id: string;
}

/** The knowledge pack the pinned version names (the contract: referenced by id and integer version). */
interface KnowledgePackFact {
  id: string;
  version: number;
}

/** A claim of an agent turn that its cited passages do not support. */
interface UnsupportedClaimFact {
  turn_index: number;
  text: string;
  passage_ids: readonly string[];
}

/**
 * The grounding check of the agent turns that used the pack (they reported the passage ids
 * they relied on), as the analysis worker ran it through the checker port
 * (shared/knowledge/grounding.ts).
 */
interface GroundingFact {
  /** Agent turns that cited at least one passage. */
  turns_using_pack: number;
  /** Checkable claims in those turns. */
  claims_checked: number;
  unsupported: readonly UnsupportedClaimFact[];
}

export interface CallFacts {
  direction: 'outbound' | 'inbound';
  /** The call's final state (the contract; shared/policy/call-state/machine.ts). */
  state: CallState;
  /** The contract Disposition value, or null when none was set. */
  disposition: string | null;
  /**
   * Who picked up: `human`, `machine` (carrier machine detection: Twilio's machine_* and fax),
   * `unknown` (answered without detection), or null when never answered. Inbound calls the
   * agent took are `human`: a person called. Only `machine` keeps agent turns from counting
   * as a conversation (a voicemail drop is not one).
   */
  answered_by: 'human' | 'machine' | 'unknown' | null;
  /** Every turn, in order. Empty when nobody spoke (never answered, machine, blocked, stream never connected). */
  turns: readonly TurnFact[];
  /** null: the runtime reported no disclosure. */
  disclosure: DisclosureFact | null;
  /** null: the contact never asked not to be called. */
  opt_out: OptOutFact | null;
  /** Who ended the call: the agent (runtime hang-up / end_call), the contact, or the carrier (drop, failure); null if unknown. */
  ended_by: 'agent' | 'contact' | 'carrier' | null;
  /** The call's `ended_at`; null if never stamped. */
  ended_at: string | null;
  /** The structured outcome, or null when none was recorded. */
  outcome: OutcomeFact | null;
  conversation_actions: readonly ConversationActionFact[];
  recorded_responses: readonly RecordedResponseFact[];
  /** Ids of the call's own `questions` (POST /v1/calls), added to the pinned version's objectives: each needs an answer. */
  question_ids: readonly string[];
  /** The pinned version's knowledge pack, or null when it names none. */
  knowledge_pack: KnowledgePackFact | null;
  /** The grounding check; null when none ran (no pack, or its version could not be read). */
  grounding: GroundingFact | null;
}
