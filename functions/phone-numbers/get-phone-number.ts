import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getPhoneNumber, presentPhoneNumber } from '../../shared/repositories/phone-numbers.js';
import { numberPath, phoneNumberSummary } from '../../shared/schemas/phone-numbers.js';

/** GET /v1/phone-numbers/{number_id} — another tenant's id is a 404. */
export const handler = defineRoute('getPhoneNumber', bearer, { path: numberPath, responses: { 200: phoneNumberSummary } }, async ({ principal, path }) => {
  const number = await getPhoneNumber(principal.tenantId, path.number_id);
  if (!number) throw notFound('Phone number');
  return ok(presentPhoneNumber(number, now()));
});
