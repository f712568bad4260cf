import { now } from '../../shared/clock.js';
import { DomainError } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { liftSuppression } from '../../shared/repositories/suppressions.js';
import { suppressionLiftRequest, suppressionPath, suppressionResource } from '../../shared/schemas/suppressions.js';

/**
 * DELETE /v1/suppressions/{phone_e164} (admin) — lifts the number's active entry: it is
 * kept as history (`status: "lifted"`, `lifted_at`, the note), never erased, and the contact
 * holding the number gets do_not_call = false in the same transaction. 404 when the number
 * is not suppressed.
 */
export const handler = defineRoute(
  'liftSuppression',
  bearer,
  { path: suppressionPath, body: suppressionLiftRequest, responses: { 200: suppressionResource } },
  async ({ principal, path, body }) => {
    const lifted = await liftSuppression(principal.tenantId, path.phone_e164, { note: body.note, by: principal.keyId }, now());
    if (!lifted) throw new DomainError('not_found', 'not_found', `${path.phone_e164} is not suppressed`);
    return ok(lifted);
  },
);
