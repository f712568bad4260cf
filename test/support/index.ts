/** Test helpers: import from 'test/support/index.js' (relative path from the test file). */
export { createTestEnvironment, emulatorEndpoints, type TestEnvironment, uniqueSuffix, useTestEnvironment } from './environment.js';
export { startTestStack, type TestStack, type TestStackOptions, useTestStack } from './stack.js';
export { type WaitForOptions, waitFor } from './wait-for.js';
