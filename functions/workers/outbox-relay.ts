import type { DynamoDBStreamEvent } from 'aws-lambda';
import { OUTBOX_SHARDS } from '../../shared/db/keys.js';
import { logger } from '../../shared/observability.js';
import { type RelayResult, relayOutbox } from '../../shared/webhooks/relay.js';

/**
 * The outbox relay (shared/webhooks/relay.ts). Two triggers on AWS, one function: the
 * table's stream (a marker was inserted: relay its shard now) and an EventBridge schedule
 * (relay every shard: whatever the stream path missed). Locally it runs on an interval.
 */
export const handler = async (event?: Partial<DynamoDBStreamEvent>): Promise<RelayResult> => {
  const shards = new Set<number>();
  for (const record of event?.Records ?? []) {
    const match = /^PLATFORM#OUTBOX#(\d+)$/.exec(record.dynamodb?.Keys?.pk?.S ?? '');
    if (match && Number(match[1]) < OUTBOX_SHARDS) shards.add(Number(match[1]));
  }
  const result = await relayOutbox(event?.Records ? { shards: [...shards] } : {});
  if (result.relayed || result.failed) logger.info('outbox relay', { ...result });
  // A failed enqueue leaves its markers; on the stream trigger, throwing makes Lambda retry the batch.
  if (result.failed && event?.Records) throw new Error(`outbox relay: ${result.failed} events not enqueued`);
  return result;
};
