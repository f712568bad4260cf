/** Test helpers: import from 'test/support/index.js' (relative path from the test file). */
export { createTestEnvironment, emulatorEndpoints, useTestEnvironment, uniqueSuffix, type TestEnvironment } from './environment.js';
export { startTestStack, useTestStack, type TestStack, type TestStackOptions } from './stack.js';
export { waitFor, type WaitForOptions } from './wait-for.js';
