import { defineRoute } from '../../shared/http/route.js';
import { ok } from '../../shared/http/responses.js';
import { healthSchema } from '../../shared/schemas/common.js';

/** GET /healthz — the process is up. Touches nothing. */
export const handler = defineRoute('getHealth', { responses: { 200: healthSchema } }, async () =>
  ok({ status: 'ok' }),
);
