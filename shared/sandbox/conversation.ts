/**
 * What the sandbox voice runtime reports for a test number's conversation, pure: the
 * scenario's script played against the pinned agent version (its use case, objectives,
 * tools and disclosure) and the call's own questions. "Reaching the goal" follows the
 * pinned version: every objective and question answered, and the template's outcome
 * recorded through its tools. The calls issue maps these events onto the runtime events
 * route; nothing here does I/O or reads a clock (`at` is passed in).
 */
import type { ConversationScript } from './scenarios.js';

export interface PinnedAgentView {
  use_case: string;
  objectives: readonly { id: string; description: string; required: boolean }[];
  tools: readonly string[];
  disclosure_config: Record<string, unknown>;
}

export interface CallQuestionView {
  id: string;
  prompt: string;
  scoring?: { mapping?: Record<string, number> } | null;
}

export type ConversationEvent =
  | { type: 'turn'; speaker: 'agent' | 'callee'; text: string; passage_ids?: string[] }
  | { type: 'disclosure'; text: string }
  | { type: 'response'; source: 'objective' | 'question'; id: string; value: string }
  | { type: 'tool_call'; tool: string; arguments: Record<string, unknown> }
  | { type: 'opt_out'; reason: 'do_not_call' | 'wrong_person' }
  | { type: 'hangup'; by: 'agent' | 'callee' };

export type SequencedEvent = ConversationEvent & { seq: number };

interface Item {
  source: 'objective' | 'question';
  id: string;
  prompt: string;
  value: string;
}

/** The tool that records each use case's outcome, and its arguments when reached or not. */
function outcomeCall(useCase: string, reached: boolean, items: Item[], at: Date): { tool: string; arguments: Record<string, unknown> } | null {
  switch (useCase) {
    case 'sdr':
    case 'recruiting':
      return { tool: 'record_qualification', arguments: { qualified: reached } };
    case 'staffing':
      return reached ? { tool: 'confirm_shift', arguments: { response: 'confirmed' } } : { tool: 'record_shift_response', arguments: { response: 'declined' } };
    case 'reminder': {
      if (!reached) return null; // no appointment: nothing to book
      const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1, 15));
      return { tool: 'book_meeting', arguments: { outcome: 'booked', appointment: { starts_at: day.toISOString(), duration_minutes: 30 } } };
    }
    case 'survey':
      return { tool: 'record_survey_answer', arguments: { complete: reached, answers: Object.fromEntries(items.map((i) => [i.id, i.value])) } };
    default:
      return null; // custom and receptionist agents reach their goal by their objectives alone
  }
}

const disclosureText = (config: Record<string, unknown>) =>
  typeof config.opener === 'string' && config.opener
    ? config.opener
    : `This call is from ${typeof config.business_name === 'string' ? config.business_name : 'our company'}.`;

/** A question with a scoring mapping is answered with its first mapped label, so scoring has something to map. */
const questionValue = (q: CallQuestionView) => Object.keys(q.scoring?.mapping ?? {})[0] ?? `Sandbox answer to ${q.id}`;

/** What the hallucinating agent says: hours and a price no clinic passage holds. */
export const INVENTED_ANSWER = 'On Saturday we are open from 6:00 to 23:30, and a cleaning costs $4,321.';
export const PACK_QUESTION = 'What are your opening hours on Saturday?';

/** `passageId`: the pinned pack's best passage for PACK_QUESTION (what the inventing agent cites), null without a pack. */
export function conversationEvents(
  script: ConversationScript,
  input: { version: PinnedAgentView; questions: readonly CallQuestionView[]; at: Date; passageId?: string | null },
): SequencedEvent[] {
  const { version } = input;
  const events: ConversationEvent[] = [];
  const granted = (tool: string) => version.tools.includes(tool);
  const tool = (name: string, args: Record<string, unknown>) => {
    if (granted(name)) events.push({ type: 'tool_call', tool: name, arguments: args });
  };
  const say = (speaker: 'agent' | 'callee', text: string) => events.push({ type: 'turn', speaker, text });
  const agentCloses = (text: string) => {
    say('agent', text);
    tool('end_call', {});
    events.push({ type: 'hangup', by: 'agent' });
  };
  const items: Item[] = [
    ...version.objectives.map((o): Item => ({ source: 'objective', id: o.id, prompt: o.description, value: `Sandbox answer to ${o.id}` })),
    ...input.questions.map((q): Item => ({ source: 'question', id: q.id, prompt: q.prompt, value: questionValue(q) })),
  ];

  say('callee', 'Hello?');
  if (script.agent_skips_disclosure) {
    say('agent', 'Hi there, do you have a minute?');
  } else {
    const text = disclosureText(version.disclosure_config);
    events.push({ type: 'disclosure', text });
    say('agent', text);
  }

  if (script.agent_invents_answer) {
    say('callee', PACK_QUESTION);
    events.push({ type: 'turn', speaker: 'agent', text: INVENTED_ANSWER, ...(input.passageId ? { passage_ids: [input.passageId] } : {}) });
  }

  if (script.opt_out) {
    say('callee', script.wrong_person ? "You have the wrong person. Please don't call this number again." : "Please don't call me again.");
    events.push({ type: 'opt_out', reason: script.wrong_person ? 'wrong_person' : 'do_not_call' });
    if (!script.agent_ignores_opt_out) {
      tool('record_optout', { reason: script.wrong_person ? 'wrong_person' : 'do_not_call' });
      agentCloses('Understood, you will not be called again. Goodbye.');
      return sequenced(events);
    }
    // The agent carries on as if nothing was said; the callee gives up.
    if (items[0]) say('agent', items[0].prompt);
    say('callee', 'I asked you not to call me.');
    events.push({ type: 'hangup', by: 'callee' });
    return sequenced(events);
  }

  if (script.declines) {
    say('callee', "I'm not interested in taking part, thanks.");
    // A survey agent records the refusal, as a real one would: the survey response is declined by it.
    if (version.use_case === 'survey') tool('record_survey_answer', { declined: true, answers: {} });
    agentCloses('No problem, thank you for your time. Goodbye.');
    return sequenced(events);
  }

  const answered =
    script.answers === 'all' ? items : script.answers === 'all_but_last' ? items.slice(0, -1) : script.answers === 'first_only' ? items.slice(0, 1) : [];
  for (const item of script.answers === 'all_but_last' ? items : answered) {
    say('agent', item.prompt);
    if (!answered.includes(item)) {
      say('callee', "I'd rather not say.");
      continue;
    }
    say('callee', item.value);
    events.push({ type: 'response', source: item.source, id: item.id, value: item.value });
  }
  if (script.callee_hangs_up) {
    say('callee', 'Sorry, I have to go.');
    events.push({ type: 'hangup', by: 'callee' });
    return sequenced(events);
  }
  const outcome = outcomeCall(version.use_case, script.goal, answered, input.at);
  if (outcome) tool(outcome.tool, outcome.arguments);
  agentCloses(script.goal ? 'Thank you, that is everything I needed. Goodbye.' : 'Thank you for your time. Goodbye.');
  return sequenced(events);
}

const sequenced = (events: ConversationEvent[]): SequencedEvent[] => events.map((e, seq) => ({ ...e, seq }));
