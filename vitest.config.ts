import { defineConfig } from 'vitest/config';

// The SDK's "Node < 22" advisory, once per process, is noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One in-memory DynamoDB Local + one SQS/S3 emulator per run, on free ports.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: process.env.LOG_LEVEL ?? 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  },
});
