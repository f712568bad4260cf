import { now } from '../../shared/clock.js';
import { conflict, notFound, ValidationError, type ValidationIssue } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { agentRefs, pinAgents, repRefs } from '../../shared/policy/answering/walk.js';
import { INELIGIBLE_MESSAGES, numberIneligibility } from '../../shared/policy/number-eligibility.js';
import { getAgentRecord } from '../../shared/repositories/agents.js';
import { getCurrentPolicy, PolicyWriteRefused, presentPolicy, writePolicy } from '../../shared/repositories/answering-policies.js';
import { getPhoneNumber } from '../../shared/repositories/phone-numbers.js';
import { getRep } from '../../shared/repositories/reps.js';
import { getTelephonyAccount } from '../../shared/repositories/telephony-accounts.js';
import { answeringPolicyResource, answeringPolicyUpsertRequest, numberIneligibleError } from '../../shared/schemas/answering-policy.js';
import { numberPath } from '../../shared/schemas/phone-numbers.js';

/** A transaction holds 100 items: the number, the version, the account check and one check per rep. */
const MAX_DISTINCT_REPS = 90;

/**
 * PUT /v1/phone-numbers/{number_id}/answering-policy — replaces the whole document as a new
 * version and puts the number on the policy route (rule 1), if the number is eligible
 * (rule 2, else 409 number_ineligible), every ai step's agent has a published version, which
 * is pinned into the stored policy (rule 3), and every ring_humans rep is active with a
 * transfer number (rule 4), each failure a 422 at its loc. The document and the route change
 * are one transaction re-checking all of that (rule 5): on failure the previous route and
 * policy stay in force.
 */
export const handler = defineRoute(
  'putAnsweringPolicy',
  bearer,
  { path: numberPath, body: answeringPolicyUpsertRequest, responses: { 200: answeringPolicyResource, 409: numberIneligibleError } },
  async ({ principal, path, body }) => {
    const tenantId = principal.tenantId;
    const number = await getPhoneNumber(tenantId, path.number_id);
    if (!number) throw notFound('Phone number');
    const account = await getTelephonyAccount(tenantId, number.telephony_account_id);
    const ineligible = numberIneligibility(number, account?.verification_status);
    if (ineligible.length)
      throw conflict('number_ineligible', `This number cannot take an answering policy: ${ineligible.map((r) => INELIGIBLE_MESSAGES[r]).join('; ')}`, {
        reasons: ineligible,
      });

    const issues: ValidationIssue[] = [];
    const agents = agentRefs(body);
    const pins = new Map<string, { agent_version_id: string; agent_version: number }>();
    await Promise.all(
      [...new Set(agents.map((a) => a.agent_id))].map(async (agentId) => {
        const agent = await getAgentRecord(tenantId, agentId, true);
        if (agent?.latest_version_id && agent.version_count > 0)
          pins.set(agentId, { agent_version_id: agent.latest_version_id, agent_version: agent.version_count });
        for (const ref of agents.filter((a) => a.agent_id === agentId && !pins.has(agentId))) {
          issues.push(
            agent
              ? {
                  loc: ['body', ...ref.path],
                  msg: 'The agent has no published version; publish it first (an ai step pins a published version)',
                  type: 'agent_not_published',
                  input: agentId,
                }
              : { loc: ['body', ...ref.path], msg: 'No agent of this tenant has this id', type: 'not_found', input: agentId },
          );
        }
      }),
    );
    const reps = repRefs(body);
    const repIds = [...new Set(reps.map((r) => r.rep_id))];
    if (repIds.length > MAX_DISTINCT_REPS)
      issues.push({
        loc: ['body'],
        msg: `A policy may ring at most ${MAX_DISTINCT_REPS} distinct reps`,
        type: 'too_many_reps',
        ctx: { max_reps: MAX_DISTINCT_REPS },
      });
    await Promise.all(
      repIds.slice(0, MAX_DISTINCT_REPS).map(async (repId) => {
        const rep = await getRep(tenantId, repId);
        const problem = !rep
          ? ['No rep of this tenant has this id', 'not_found']
          : rep.status !== 'active'
            ? ['The rep is disabled', 'rep_disabled']
            : !rep.transfer_number
              ? ['The rep has no transfer number, so calls cannot be put through to them', 'rep_not_transfer_enabled']
              : null;
        if (problem)
          for (const ref of reps.filter((r) => r.rep_id === repId))
            issues.push({ loc: ['body', ...ref.path], msg: problem[0]!, type: problem[1]!, input: repId });
      }),
    );
    if (issues.length) throw new ValidationError(issues.sort((a, b) => JSON.stringify(a.loc).localeCompare(JSON.stringify(b.loc))));

    const pinned = pinAgents(body, pins);
    try {
      const { policy } = await writePolicy(number, await getCurrentPolicy(number), pinned, repIds, now());
      return ok(presentPolicy(policy));
    } catch (err) {
      if (!(err instanceof PolicyWriteRefused)) throw err;
      if (err.what === 'rep') {
        throw new ValidationError(
          reps
            .filter((r) => r.rep_id === err.repId)
            .map((ref) => ({
              loc: ['body', ...ref.path],
              msg: 'The rep was disabled or lost its transfer number while the policy was written; nothing changed',
              type: 'rep_disabled',
              input: err.repId,
            })),
        );
      }
      if (err.what === 'account')
        throw conflict('number_ineligible', "This number's telephony account stopped being verified while the policy was written; nothing changed", {
          reasons: ['account_not_verified'],
        });
      throw conflict(
        'phone_number_changed',
        'The number changed while the policy was written (another write, or it became ineligible); nothing changed. Read it and retry',
      );
    }
  },
);
