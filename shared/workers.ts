/**
 * SQS consumers: which queue feeds which worker handler. Like the route manifest, this
 * drives both the CDK event source mappings and the local runtime's pollers.
 */
import type { QueueName } from './queues/definitions.js';

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
  /** Needs the public base URL and the carrier API base URL (it asks carriers to call us back). */
  readonly publicUrls?: boolean;
  /** Reads the app secret (the platform carrier account, for managed telephony accounts). */
  readonly appSecret?: boolean;
  /** Sends to its own queue's dead-letter queue (an event whose retry schedule ran out). */
  readonly sendsToOwnDlq?: boolean;
  /**
   * Batches the local poller hands the worker at once (default 1). Lambda runs batches
   * concurrently on its own; locally this keeps one slow batch from holding the queue.
   */
  readonly batchesInFlight?: number;
}

export const workers = [
  {
    id: 'callDispatchWorker',
    queue: 'callDispatch',
    handler: 'functions/workers/call-dispatch',
    table: 'write',
    batchSize: 10,
    batchesInFlight: 4,
    timeoutSeconds: 60,
    kms: 'decrypt',
    queues: ['callAnalysis', 'callDispatch'],
    publicUrls: true,
    appSecret: true,
    summary: 'Dials queued calls (at most once per attempt; re-judged by compliance, cps-limited)',
  },
  {
    id: 'sandboxTimelineWorker',
    queue: 'sandboxTimeline',
    handler: 'functions/workers/sandbox-timeline',
    table: 'write',
    batchSize: 10,
    timeoutSeconds: 60,
    queues: ['sandboxTimeline'],
    kms: 'decrypt',
    summary: "Plays the sandbox carrier's calls and messages step by step (signed status callbacks, TwiML)",
  },
  {
    id: 'callAnalysisWorker',
    queue: 'callAnalysis',
    handler: 'functions/workers/call-analysis',
    table: 'write',
    batchSize: 10,
    timeoutSeconds: 30,
    summary: "Scores an ended call against its pinned version's rubric and stores the analysis (once)",
  },
  {
    id: 'webhookDeliveryWorker',
    queue: 'webhookDelivery',
    handler: 'functions/workers/webhook-delivery',
    table: 'write',
    batchSize: 10,
    batchesInFlight: 32,
    timeoutSeconds: 60,
    queues: ['webhookDelivery'],
    sendsToOwnDlq: true,
    kms: 'decrypt',
    summary:
      'Delivers signed webhook events (at least once): a batch per tenant in waves of parallel POSTs on kept-alive connections, retries on the schedule, a ledger row per attempt',
  },
] as const satisfies readonly WorkerDefinition[];

/**
 * Functions run on a schedule (EventBridge rules on AWS; an interval in the local runtime,
 * infra/local/stack.ts, while workers run).
 */
export interface ScheduledJobDefinition {
  readonly id: string;
  readonly handler: string;
  readonly everyMinutes: number;
  readonly table: 'read' | 'write';
  readonly timeoutSeconds: number;
  /** Queues it may send to. */
  readonly queues?: readonly QueueName[];
  /** Also run on the table's stream, for INSERTs of items whose pk starts with this prefix. */
  readonly tableStream?: string;
  /** Rights on the key that seals other parties' secrets (it opens carrier credentials). */
  readonly kms?: 'decrypt';
  /** Needs the public base URL and the carrier API base URL (it asks carriers about calls). */
  readonly publicUrls?: boolean;
  /** Reads the app secret (the platform carrier account, for managed telephony accounts). */
  readonly appSecret?: boolean;
  /** Rights on the import bucket: `erase` lists and deletes objects (the account deletion removes a tenant's). */
  readonly bucket?: 'erase';
  readonly summary: string;
}

export const scheduledJobs = [
  {
    id: 'outboxRelay',
    handler: 'functions/workers/outbox-relay',
    everyMinutes: 1,
    table: 'write',
    timeoutSeconds: 50,
    queues: ['webhookDelivery'],
    tableStream: 'PLATFORM#OUTBOX#',
    summary: 'Moves committed outbox events to the webhook-delivery queue (also on the table stream, within a second of the commit)',
  },
  {
    id: 'callScheduler',
    handler: 'functions/workers/call-scheduler',
    everyMinutes: 1,
    table: 'write',
    timeoutSeconds: 50,
    // webhookDelivery: overdue webhook events whose message was lost are enqueued again.
    queues: ['callDispatch', 'callAnalysis', 'webhookDelivery'],
    // It asks the carrier about calls whose end was never reported, with the account's credentials.
    kms: 'decrypt',
    publicUrls: true,
    appSecret: true,
    summary:
      'Sends due deferred calls to dispatch; fails calls stuck in dialing without a carrier id (dispatch_unknown); closes calls the carrier never reported the end of; re-sends lost analysis requests; re-enqueues pending webhook events whose retry message was lost',
  },
  {
    id: 'accountDeletions',
    queues: [],
    handler: 'functions/workers/account-deletions',
    everyMinutes: 15,
    table: 'write',
    // Under the 15-minute schedule, so runs do not overlap; a longer deletion resumes from its checkpoint.
    timeoutSeconds: 840,
    // It releases numbers at the carrier (credentials), cancels campaigns and deletes the tenant's import objects.
    kms: 'decrypt',
    publicUrls: true,
    appSecret: true,
    bucket: 'erase',
    summary:
      'Deletes accounts whose deletion grace period ended (or resumes one left half-way): keys and sessions, campaigns, numbers at the carrier, objects, every item but the kept kinds',
  },
  {
    id: 'invoiceJob',
    handler: 'functions/workers/invoice-job',
    everyMinutes: 30,
    table: 'write',
    timeoutSeconds: 600,
    queues: [],
    // The sandbox payment provider posts its signed webhooks to our public URL; the app secret holds the provider settings.
    publicUrls: true,
    appSecret: true,
    summary:
      "Period close: builds each tenant's invoice of the previous month from the usage ledger and finalizes it with the payment provider (idempotent per tenant and period)",
  },
] as const satisfies readonly ScheduledJobDefinition[];
