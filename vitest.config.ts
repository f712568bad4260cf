import { defineConfig } from 'vitest/config';

// The SDK's "Node < 22" advisory, once per process, is noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: process.env.LOG_LEVEL ?? 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    projects: [
      // Pure units and the CDK synth tests: no DynamoDB Local, no emulator.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/infra/**/*.test.ts'] } },
      // One in-memory DynamoDB Local + one SQS/S3 emulator per run, on free ports.
      {
        extends: true,
        test: {
          name: 'stack',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          // A conversation's words must not depend on how busy the machine is: the runtime's
          // speed-triggered lines (the filler after a slow tool, the fall-over after a late first
          // token) are off or far here, and the unit tests drive them with their own timings.
          env: { VOICE_FILLER_AFTER_MS: '0', VOICE_FIRST_TOKEN_DEADLINE_MS: '30000' },
        },
      },
    ],
  },
});
