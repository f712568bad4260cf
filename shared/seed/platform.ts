/**
 * Platform data every deployment needs, written idempotently (conditional puts that
 * skip what already exists, so re-running never overwrites). The local runtime runs it
 * on every start; on AWS the stack's post-deploy hook runs it whenever the seed content
 * changes (infra/constructs/platform-seed.ts, functions/deploy/seed-platform.ts), and
 * `npm run admin -- seed` remains the manual fallback.
 * Agent templates (shared/schemas/template-catalogue.ts) are versioned: see seedTemplate.
 */
import { contentHash } from '../canonical-json.js';
import { PLANS } from '../policy/billing/plans.js';
import { seedTemplate } from '../repositories/agent-templates.js';
import { putPlanIfChanged } from '../repositories/billing.js';
import { putPlatformRecordIfAbsent } from '../repositories/platform-records.js';
import type { TemplateDefinition } from '../schemas/agent-templates.js';
import { TEMPLATES } from '../schemas/template-catalogue.js';

export const PLATFORM_SCHEMA_VERSION = 1;

const platformRecords = (now: string) => [
  { pk: 'PLATFORM', sk: 'META', type: 'platform_meta', schema_version: PLATFORM_SCHEMA_VERSION, api_version: '0.1.0', seeded_at: now },
];

/** Plans (see docs/decisions/billing.md) are platform data too; unlike the records above, a changed plan replaces the stored one. */
async function seedPlans(): Promise<{ written: number; existing: number }> {
  let written = 0;
  let existing = 0;
  for (const plan of PLANS) {
    if (await putPlanIfChanged(plan, contentHash(plan))) written++;
    else existing++;
  }
  return { written, existing };
}

/**
 * Everything the seed writes except timestamps, hashed: the stack passes it to the deploy
 * hook as a property, so CloudFormation re-runs the seed exactly when this changes.
 */
export const seedContentHash = (templates: readonly TemplateDefinition[] = TEMPLATES): string =>
  contentHash({ platform: platformRecords(''), templates, plans: PLANS });

export async function seedPlatformData(): Promise<{ written: number; existing: number }> {
  let written = 0;
  let existing = 0;
  for (const item of platformRecords(new Date().toISOString())) {
    if (await putPlatformRecordIfAbsent(item)) written++;
    else existing++;
  }
  const plans = await seedPlans();
  written += plans.written;
  existing += plans.existing;
  for (const template of TEMPLATES) {
    if ((await seedTemplate(template, new Date().toISOString())) === 'unchanged') existing++;
    else written++;
  }
  return { written, existing };
}
