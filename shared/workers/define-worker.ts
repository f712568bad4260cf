/**
 * The one factory for SQS workers: Powertools BatchProcessor reports partial batch
 * failures, so one bad message is retried (and eventually dead-lettered) alone instead
 * of redelivering the whole batch. Each message body is validated before work runs.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { logger } from '../observability.js';

class PoisonMessage extends Error {}

export function defineWorker<S extends z.ZodType>(name: string, schema: S, work: (message: z.output<S>, record: SQSRecord) => Promise<void>) {
  const processRecord = async (record: SQSRecord) => {
    let json: unknown;
    try {
      json = JSON.parse(record.body);
    } catch {
      throw new PoisonMessage(`message ${record.messageId} is not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new PoisonMessage(`message ${record.messageId} does not match the ${name} schema`);
    logger.info('processing message', { worker: name, message_id: record.messageId, receive_count: record.attributes?.ApproximateReceiveCount });
    await work(parsed.data, record);
  };
  // A processor per batch: it holds the batch's results, and the local runtime runs a worker's batches at once
  // (a shared one let a batch's start clear another's failures, and a failed message was deleted as done).
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event: SQSEvent, context: Context) => processPartialResponse(event, processRecord, new BatchProcessor(EventType.SQS), { context }));
}
