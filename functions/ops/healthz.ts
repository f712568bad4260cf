import { ok } from '../../shared/http/responses.js';
import { definePublicRoute } from '../../shared/http/route-core.js';
import { healthSchema } from '../../shared/schemas/common.js';

/** GET /healthz — the process is up. Touches nothing, and imports only the factory's public part. */
export const handler = definePublicRoute('getHealth', { responses: { 200: healthSchema } }, async () => ok({ status: 'ok' }));
