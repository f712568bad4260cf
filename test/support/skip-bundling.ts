/**
 * CDK context that skips asset bundling (esbuild, and npm for native modules) in every
 * stack: for tests that assert on templates, not on what a bundle holds.
 */
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';

export const SKIP_BUNDLING: Record<string, unknown> = { [BUNDLING_STACKS]: [] };
