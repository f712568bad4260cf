import { now } from '../../shared/clock.js';
import { conflict } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { AlreadySuppressed, addSuppression } from '../../shared/repositories/suppressions.js';
import { alreadySuppressedError, suppressionCreateRequest, suppressionResource } from '../../shared/schemas/suppressions.js';

/**
 * POST /v1/suppressions — 201 with the new active entry (source `api`, source_id the
 * calling API key). The contact holding the number gets do_not_call = true in the same
 * transaction (and, with an Idempotency-Key, so is the stored result). A number already
 * suppressed is a 409 `already_suppressed` naming the active entry.
 */
export const handler = defineRoute(
  'createSuppression',
  bearer,
  { body: suppressionCreateRequest, responses: { 201: suppressionResource, 409: alreadySuppressedError } },
  async ({ principal, body, idempotency }) => {
    try {
      const entry = await addSuppression(principal.tenantId, { ...body, source: 'api', source_id: principal.keyId }, now(), (e) =>
        idempotency ? [idempotency.commitItem(created(e))] : [],
      );
      return { ...created(entry), idempotencyCommitted: Boolean(idempotency) };
    } catch (err) {
      if (err instanceof AlreadySuppressed) {
        throw conflict('already_suppressed', `${body.phone_e164} is already suppressed`, { suppression_id: err.suppressionId });
      }
      throw err;
    }
  },
);
