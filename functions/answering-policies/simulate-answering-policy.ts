import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { simulate } from '../../shared/policy/answering/navigate.js';
import { getCurrentPolicy } from '../../shared/repositories/answering-policies.js';
import { getPhoneNumber } from '../../shared/repositories/phone-numbers.js';
import { simulationRequest, simulationResult } from '../../shared/schemas/answering-simulation.js';
import { numberPath } from '../../shared/schemas/phone-numbers.js';

/**
 * POST /v1/phone-numbers/{number_id}/answering-policy/simulate — which step list the policy
 * in force answers with at `at` (open, closed, holiday) and the path the given key presses
 * take, with the same pure evaluator the carrier routes use; no call is placed, nothing written.
 */
export const handler = defineRoute(
  'simulateAnsweringPolicy',
  bearer,
  { path: numberPath, body: simulationRequest, responses: { 200: simulationResult } },
  async ({ principal, path, body }) => {
    const number = await getPhoneNumber(principal.tenantId, path.number_id);
    if (!number) throw notFound('Phone number');
    const policy = await getCurrentPolicy(number);
    if (!policy) throw notFound('Answering policy');
    const at = body?.at ? new Date(body.at) : new Date();
    const result = simulate(policy, at, body?.digits ?? [], { ringsAnswered: body?.reps_answer ?? true });
    const { minutes: _minutes, ...local } = result.schedule.local;
    return ok({ policy_version: policy.version, at: at.toISOString(), ...result, schedule: { ...result.schedule, local } });
  },
);
