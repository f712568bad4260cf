/**
 * Import this module first, as a bare import (`import '../support/debug-log-level.js'`), in a
 * test file that reads log lines: Powertools builds each logger's level from
 * POWERTOOLS_LOG_LEVEL when the module loads and, on every warm invocation, resets the level to
 * that initial one, so the variable must be set before any handler loads. A bare import is a
 * boundary the import sorter never moves anything across.
 */
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
