/**
 * Walks a policy's steps in document order, so the PUT handler can check every reference
 * (PUT rules 3 and 4) and answer 422 at the exact loc: ["body", ...ref.path].
 */
import type { AiStepRequest, AnyStep, MenuStepOf, PinnedAiStep, PolicyDocument, StepOf } from './model.js';
import type { PolicyPath } from './step-path.js';

interface StepVisit<S> {
  step: S;
  path: PolicyPath;
  /** Menus enclosing this step (a top-level step has 0). */
  menuDepth: number;
}

export function* walkSteps<S extends AnyStep>(policy: Pick<PolicyDocument<S>, 'open_steps' | 'closed_steps'>): Generator<StepVisit<S>> {
  function* list(steps: S[], path: PolicyPath, menuDepth: number): Generator<StepVisit<S>> {
    for (const [i, step] of steps.entries()) {
      const here = [...path, i];
      yield { step, path: here, menuDepth };
      if (step.type !== 'menu') continue;
      const menu = step as MenuStepOf<S>;
      for (const [key, branch] of Object.entries(menu.branches)) yield* list(branch as S[], [...here, 'branches', key], menuDepth + 1);
      yield* list(menu.timeout_branch, [...here, 'timeout_branch'], menuDepth + 1);
    }
  }
  yield* list(policy.open_steps, ['open_steps'], 0);
  yield* list(policy.closed_steps ?? [], ['closed_steps'], 0);
}

export interface AgentRef {
  agent_id: string;
  /** Ends at "agent_id". */
  path: PolicyPath;
}
export interface RepRef {
  rep_id: string;
  /** Ends at ("rep_ids", i). */
  path: PolicyPath;
}

export function agentRefs(policy: Pick<PolicyDocument, 'open_steps' | 'closed_steps'>): AgentRef[] {
  const out: AgentRef[] = [];
  for (const { step, path } of walkSteps(policy)) if (step.type === 'ai') out.push({ agent_id: step.agent_id, path: [...path, 'agent_id'] });
  return out;
}

export function repRefs(policy: Pick<PolicyDocument, 'open_steps' | 'closed_steps'>): RepRef[] {
  const out: RepRef[] = [];
  for (const { step, path } of walkSteps(policy)) {
    if (step.type === 'ring_humans') for (const [i, rep_id] of step.rep_ids.entries()) out.push({ rep_id, path: [...path, 'rep_ids', i] });
  }
  return out;
}

export interface AgentPin {
  agent_version_id: string;
  agent_version: number;
}

/**
 * The stored form of a written policy: every ai step carries the version of its agent that
 * was latest published when the policy was written (PUT rule 3). The caller resolved every
 * agent first; a missing pin is a programming error, not a client one.
 */
export function pinAgents<D extends Pick<PolicyDocument<StepOf<AiStepRequest>>, 'open_steps' | 'closed_steps'>>(
  policy: D,
  pins: ReadonlyMap<string, AgentPin>,
): Omit<D, 'open_steps' | 'closed_steps'> & { open_steps: StepOf<PinnedAiStep>[]; closed_steps: StepOf<PinnedAiStep>[] } {
  const pinList = (steps: StepOf<AiStepRequest>[]): StepOf<PinnedAiStep>[] => steps.map(pinStep);
  const pinStep = (step: StepOf<AiStepRequest>): StepOf<PinnedAiStep> => {
    switch (step.type) {
      case 'ai': {
        const pin = pins.get(step.agent_id);
        if (!pin) throw new Error(`no pinned version for agent ${step.agent_id}`);
        return { type: 'ai', agent_id: step.agent_id, agent_version_id: pin.agent_version_id, agent_version: pin.agent_version };
      }
      case 'menu':
        return {
          ...step,
          branches: Object.fromEntries(Object.entries(step.branches).map(([k, v]) => [k, pinList(v!)])),
          timeout_branch: pinList(step.timeout_branch),
        };
      default:
        return step;
    }
  };
  return { ...policy, open_steps: pinList(policy.open_steps), closed_steps: pinList(policy.closed_steps ?? []) };
}
