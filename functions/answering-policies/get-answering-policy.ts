import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getCurrentPolicy, presentPolicy } from '../../shared/repositories/answering-policies.js';
import { getPhoneNumber } from '../../shared/repositories/phone-numbers.js';
import { answeringPolicyResource } from '../../shared/schemas/answering-policy.js';
import { numberPath } from '../../shared/schemas/phone-numbers.js';

/** GET /v1/phone-numbers/{number_id}/answering-policy — the latest version written; 404 before the first PUT. */
export const handler = defineRoute(
  'getAnsweringPolicy',
  bearer,
  { path: numberPath, responses: { 200: answeringPolicyResource } },
  async ({ principal, path }) => {
    const number = await getPhoneNumber(principal.tenantId, path.number_id);
    if (!number) throw notFound('Phone number');
    const policy = await getCurrentPolicy(number);
    if (!policy) throw notFound('Answering policy');
    return ok(presentPolicy(policy));
  },
);
