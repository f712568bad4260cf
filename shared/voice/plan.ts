/**
 * The agent plan: the machine-readable part of the system prompt (use case, outcome type,
 * objectives, the call's questions, granted tools), between PLAN_OPEN and PLAN_CLOSE as one
 * JSON line. A real model reads it as part of its instructions; the deterministic sandbox
 * model reads it with `readPlan` to follow the same objectives a capable model would. Pure.
 */
export const PLAN_OPEN = '<agent_plan>';
export const PLAN_CLOSE = '</agent_plan>';

export interface AgentPlan {
  use_case: string;
  outcome_type: string;
  language: string;
  objectives: { id: string; description: string; required: boolean }[];
  questions: { id: string; prompt: string; options?: string[] }[];
  tools: string[];
}

export const renderPlan = (plan: AgentPlan): string => `${PLAN_OPEN}${JSON.stringify(plan)}${PLAN_CLOSE}`;

/** The plan a system prompt carries, or null when it has none (or it is unreadable). */
export function readPlan(system: string): AgentPlan | null {
  const start = system.indexOf(PLAN_OPEN);
  const end = system.indexOf(PLAN_CLOSE, start + PLAN_OPEN.length);
  if (start < 0 || end < 0) return null;
  try {
    const plan = JSON.parse(system.slice(start + PLAN_OPEN.length, end)) as AgentPlan;
    return Array.isArray(plan.objectives) && Array.isArray(plan.questions) && Array.isArray(plan.tools) ? plan : null;
  } catch {
    return null;
  }
}
