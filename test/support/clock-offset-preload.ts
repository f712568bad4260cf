/**
 * `node --import tsx --import test/support/clock-offset-preload.ts bin/local.ts`: a local stack
 * started as a child process whose platform clock reads TEST_PLATFORM_CLOCK_OFFSET_MS ahead
 * (shared/clock.ts keeps its offset on globalThis), so a test can run it inside a calling window.
 */
const holder = globalThis as typeof globalThis & { __platformClockOffsetMs?: number };
holder.__platformClockOffsetMs = Number(process.env.TEST_PLATFORM_CLOCK_OFFSET_MS) || 0;
