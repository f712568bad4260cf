import { configDefaults, defineConfig } from 'vitest/config';

// The SDK's "Node < 22" advisory, once per process, is noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * Stack files whose assertions judge how fast the product answers, not only what it answers: a
 * conversation's verdict includes the rubric's latency dimension (a starved runtime crosses its
 * target), and the webhook breaker re-sends a POST slower than its slow-wave bound. They run one at
 * a time, after everything else; the rest of the stack files mostly wait, so several run at once.
 */
const speedJudged = [
  'test/e2e/call-test-numbers.test.ts',
  'test/e2e/voice-conversation.test.ts',
  'test/e2e/admin-cli-first-hour.test.ts',
  'test/e2e/knowledge-pack-calls.test.ts',
  'test/e2e/readme-walkthrough.test.ts',
  'test/e2e/webhooks.test.ts',
];

// One in-memory DynamoDB Local + one SQS/S3 emulator per run, on free ports, shared by both groups.
const stack = {
  globalSetup: ['test/support/global-setup.ts'],
  // A stack test waits on conditions, each with its own waitFor deadline (some 30 s), and runs the
  // CLI as child processes; the test's own timeout only catches a hang, so it sits above its waits
  // added up on a loaded machine rather than cutting the first slow one short.
  testTimeout: 120_000,
  // A conversation's words must not depend on how busy the machine is: the runtime's
  // speed-triggered lines (the filler after a slow tool, the fall-over after a late first
  // token) are off or far here, and the unit tests drive them with their own timings.
  env: { VOICE_FILLER_AFTER_MS: '0', VOICE_FIRST_TOKEN_DEADLINE_MS: '30000' },
};

export default defineConfig({
  test: {
    pool: 'forks',
    // Three files at once on two cores (vitest's default there is one): the stack files mostly
    // wait on the sandbox's timelines and the emulators; the unit files fill the gaps.
    maxWorkers: 3,
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
      {
        extends: true,
        test: {
          ...stack,
          name: 'stack',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...speedJudged],
          env: { ...stack.env },
        },
      },
      {
        extends: true,
        test: {
          ...stack,
          name: 'stack-timed',
          include: speedJudged,
          env: { ...stack.env },
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
