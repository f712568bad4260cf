/**
 * The queues, defined once for the CDK stack and the local emulator so they cannot drift.
 * Visibility timeout must exceed the consuming worker's timeout (AWS requires it for
 * event source mappings); maxReceiveCount moves a poison message to its DLQ.
 */
export const queues = {
  callDispatch: {
    name: 'call-dispatch',
    envVar: 'CALL_DISPATCH_QUEUE_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    dlqRetentionDays: 14,
  },
  webhookDelivery: {
    name: 'webhook-delivery',
    envVar: 'WEBHOOK_DELIVERY_QUEUE_URL',
    /** The worker dead-letters an event whose retry schedule ran out itself (not only SQS's redrive). */
    dlqEnvVar: 'WEBHOOK_DELIVERY_DLQ_URL',
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 8,
    dlqRetentionDays: 14,
  },
  /** Post-call analysis: one message per call that reached a terminal state (functions/workers/call-analysis.ts). */
  callAnalysis: {
    name: 'call-analysis',
    envVar: 'CALL_ANALYSIS_QUEUE_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    dlqRetentionDays: 14,
  },
  /**
   * The sandbox carrier's call and message timelines: one message per step, delayed with
   * DelaySeconds (SQS allows up to 900 s) and the sub-second rest waited by the worker.
   */
  sandboxTimeline: {
    name: 'sandbox-timeline',
    envVar: 'SANDBOX_TIMELINE_QUEUE_URL',
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
    // As long as every other DLQ: a dead-lettered step is only seen once an operator is paged.
    dlqRetentionDays: 14,
  },
} as const;

export type QueueName = keyof typeof queues;
export const dlqName = (q: QueueName): string => `${queues[q].name}-dlq`;
