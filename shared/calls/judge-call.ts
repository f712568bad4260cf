/**
 * judgeCall: may a call of this agent to this contact be placed at `at`, later, or never,
 * and from which number — exactly as POST /v1/calls will judge it (the agent's latest
 * published version, the caller number the dispatcher would pick). Reads only.
 *
 * The decision is the engine's output verbatim, plus the caller-number reason when no
 * number can place the call (caller-decision.ts). Unknown ids — including another
 * tenant's, which no key of this tenant can reach — are UnknownCallTarget (422 at
 * ["body","agent_id"] / ["body","contact_id"]); an agent never published is
 * AgentNotPublished (409 agent_not_published).
 */
import { conflict, ValidationError, type ValidationIssue } from '../errors.js';
import { evaluate } from '../policy/compliance/evaluate.js';
import type { PinnedVersion } from '../repositories/agent-heads.js';
import type { ContactFacts } from '../repositories/contact-attempts.js';
import type { CallDecision } from '../schemas/calls.js';
import { mergeCallerDecision } from './caller-decision.js';
import { type AgentRef, type CallerNumber, type EarlyCall, gatherComplianceInputs } from './compliance-inputs.js';

export class UnknownCallTarget extends Error {
  constructor(readonly fields: readonly ('agent_id' | 'contact_id')[]) {
    super(`unknown ${fields.join(' and ')}`);
  }
}
class AgentNotPublished extends Error {
  constructor(readonly agentId: string) {
    super('the agent has no published version');
  }
}

export interface CallJudgement {
  decision: CallDecision;
  agentVersion: PinnedVersion;
  contact: ContactFacts;
  /** The number the call would be placed from now; null when none is usable now (see the decision's reasons). */
  caller: CallerNumber | null;
}

export async function judgeCall(
  tenantId: string,
  target: { agent_id: string; contact_id: string } | { version: PinnedVersion; contact_id: string },
  at: Date,
  opts: { numberIds?: readonly string[]; early?: EarlyCall } = {},
): Promise<CallJudgement> {
  const agent: AgentRef = 'version' in target ? { version: target.version } : { agent_id: target.agent_id };
  const gathered = await gatherComplianceInputs(tenantId, agent, target.contact_id, at, opts);
  if (!gathered.found) {
    const unknown = [...(gathered.agent === 'unknown' ? (['agent_id'] as const) : []), ...(gathered.contact === 'unknown' ? (['contact_id'] as const) : [])];
    if (unknown.length > 0) throw new UnknownCallTarget(unknown);
    throw new AgentNotPublished((target as { agent_id: string }).agent_id);
  }
  const { version, contact, caller, inputs } = gathered;
  return {
    decision: mergeCallerDecision(evaluate(inputs, at), caller, inputs),
    agentVersion: version,
    contact,
    caller: caller.outcome === 'chosen' ? caller.number : null,
  };
}

/** The HTTP error for judgeCall's typed errors (POST /v1/calls and preflight answer alike); others pass through. */
export function judgeCallHttpError(err: unknown): unknown {
  if (err instanceof UnknownCallTarget) {
    return new ValidationError(
      err.fields.map(
        (f): ValidationIssue => ({
          loc: ['body', f],
          msg: f === 'agent_id' ? 'No such agent in this tenant' : 'No such contact in this tenant',
          type: 'value_error',
        }),
      ),
    );
  }
  if (err instanceof AgentNotPublished) return conflict('agent_not_published', 'The agent has no published version: publish it before queuing calls');
  return err;
}
