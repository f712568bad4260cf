import { gunzipSync } from 'node:zlib';
import * as z from 'zod';
import openapi from '../../docs/openapi.json' with { type: 'json' };
import { ok } from '../../shared/http/responses.js';
import { definePublicRoute } from '../../shared/http/route-core.js';

/**
 * The document, read once. A function bundle carries it gzipped in `VC_OPENAPI_GZIP`
 * (infra/bundling.ts: ~1/10 of the parsed JSON esbuild would inline), and the JSON import
 * above is then dead code the bundler drops; unbundled, the import is the document.
 */
let document: unknown;
const theDocument = (): unknown => {
  document ??=
    (globalThis as { VC_OPENAPI_GZIP?: string }).VC_OPENAPI_GZIP === undefined
      ? openapi
      : JSON.parse(gunzipSync(Buffer.from((globalThis as { VC_OPENAPI_GZIP?: string }).VC_OPENAPI_GZIP!, 'base64')).toString('utf8'));
  return document;
};

/** GET /openapi.json — the generated interface description (docs/openapi.json). */
export const handler = definePublicRoute('getOpenApi', { responses: { 200: z.record(z.string(), z.unknown()) } }, async () => ok(theDocument()));
