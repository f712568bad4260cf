/**
 * SQS consumers: which queue feeds which worker handler. Like the route manifest, this
 * drives both the CDK event source mappings and the local runtime's pollers.
 */
import type { QueueName } from '../shared/queues/definitions.js';

export interface WorkerDefinition {
  readonly id: string;
  readonly queue: QueueName;
  readonly handler: string;
  readonly table: 'read' | 'write';
  readonly batchSize: number;
  readonly timeoutSeconds: number;
  readonly summary: string;
  /** Queues it may send to (besides consuming its own). */
  readonly queues?: readonly QueueName[];
  /** Rights on the key that seals other parties' secrets. */
  readonly kms?: 'decrypt';
}

export const workers = [
  { id: 'callDispatchWorker', queue: 'callDispatch', handler: 'functions/workers/call-dispatch', table: 'write', batchSize: 10, timeoutSeconds: 30, summary: 'Dials queued calls (at most once per attempt)' },
  { id: 'sandboxTimelineWorker', queue: 'sandboxTimeline', handler: 'functions/workers/sandbox-timeline', table: 'write', batchSize: 10, timeoutSeconds: 60, queues: ['sandboxTimeline'], kms: 'decrypt', summary: "Plays the sandbox carrier's calls and messages step by step (signed status callbacks, TwiML)" },
  { id: 'callAnalysisWorker', queue: 'callAnalysis', handler: 'functions/workers/call-analysis', table: 'write', batchSize: 10, timeoutSeconds: 30, summary: "Scores an ended call against its pinned version's rubric and stores the analysis (once)" },
  { id: 'webhookDeliveryWorker', queue: 'webhookDelivery', handler: 'functions/workers/webhook-delivery', table: 'write', batchSize: 10, timeoutSeconds: 60, summary: 'Delivers signed webhook events (at least once)' },
] as const satisfies readonly WorkerDefinition[];
