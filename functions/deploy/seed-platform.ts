import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { type CfnResult, sendCfnResponse } from '../../shared/aws/cfn-response.js';
import { logger } from '../../shared/observability.js';
import { seedPlatformData } from '../../shared/seed/platform.js';

/** Constant: an Update is the same resource seeded again, never a replacement (no Delete follows). */
export const SEED_RESOURCE_ID = 'platform-seed';

/**
 * Post-deploy hook (infra/constructs/platform-seed.ts): CloudFormation calls it as a custom
 * resource once the table exists, on create and whenever the seed content's hash changes,
 * and it writes the platform data and templates as `npm run admin -- seed` does
 * (idempotent: unchanged content writes nothing). A failure fails the deploy with its reason;
 * Delete writes nothing (the table, and its platform data, are retained).
 */
export const handler = async (event: CloudFormationCustomResourceEvent, _context?: Context): Promise<CfnResult> => {
  let result: CfnResult;
  try {
    if (event.RequestType === 'Delete') {
      result = { status: 'SUCCESS', reason: 'Nothing to undo: platform data stays with the table', physicalResourceId: event.PhysicalResourceId };
    } else {
      const { written, existing } = await seedPlatformData();
      logger.info('platform seeded', { request_type: event.RequestType, written, existing });
      result = {
        status: 'SUCCESS',
        reason: `Seeded: ${written} written, ${existing} unchanged`,
        physicalResourceId: SEED_RESOURCE_ID,
        data: { written, existing },
      };
    }
  } catch (err) {
    logger.error('platform seed failed', err as Error);
    const physicalResourceId = event.RequestType === 'Create' ? SEED_RESOURCE_ID : event.PhysicalResourceId;
    result = { status: 'FAILED', reason: `Seeding failed: ${(err as Error)?.message ?? String(err)}`, physicalResourceId };
  }
  await sendCfnResponse(event, result);
  return result;
};
