/**
 * Powertools logger and metrics, one instance per container. Every log line carries the
 * request id and, once authenticated, the tenant id (appended by the route factory).
 * Tracing: Lambda active tracing (set in the stack) records every invocation; the
 * Powertools Tracer is not bundled because it alone would push every function past the
 * 500 KB bundle budget (see docs/decisions/infra-and-security.md).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'voice-control';

export const logger = new Logger({ serviceName });
export const metrics = new Metrics({
  serviceName,
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'VoiceControl',
});
