import openapi from '../../docs/openapi.json' with { type: 'json' };
import * as z from 'zod';
import { defineRoute } from '../../shared/http/route.js';
import { ok } from '../../shared/http/responses.js';

/** GET /openapi.json — the generated interface description (docs/openapi.json). */
export const handler = defineRoute(
  'getOpenApi',
  { responses: { 200: z.record(z.string(), z.unknown()) } },
  async () => ok(openapi),
);
