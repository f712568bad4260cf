/** npm run openapi — regenerate docs/openapi.json from the manifest and the zod schemas. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildOpenApi, stringify } from '../infra/openapi/build.js';

process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
const target = resolve(import.meta.dirname, '..', 'docs', 'openapi.json');
writeFileSync(target, stringify(await buildOpenApi()));
process.stdout.write(`wrote ${target}\n`);
