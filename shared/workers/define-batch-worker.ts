/**
 * An SQS worker that takes its batch whole (defineWorker runs one message at a time): for
 * work that is cheaper per batch than per message, e.g. one read and one write for many
 * items. Each body is validated first; a message that does not parse is reported failed
 * (retried, then dead-lettered) and the rest still run. `work` answers the message ids that
 * failed, reported as partial batch failures.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { logger } from '../observability.js';

export function defineBatchWorker<S extends z.ZodType>(
  name: string,
  schema: S,
  work: (messages: { message: z.output<S>; record: SQSRecord }[]) => Promise<Iterable<string>>,
) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event: SQSEvent) => {
      const failed = new Set<string>();
      const messages: { message: z.output<S>; record: SQSRecord }[] = [];
      for (const record of event.Records) {
        let json: unknown;
        try {
          json = JSON.parse(record.body);
        } catch {
          json = undefined;
        }
        const parsed = schema.safeParse(json);
        if (parsed.success) messages.push({ message: parsed.data, record });
        else {
          logger.error('poison message', { worker: name, message_id: record.messageId });
          failed.add(record.messageId);
        }
      }
      logger.info('processing batch', { worker: name, messages: messages.length });
      if (messages.length > 0) for (const id of await work(messages)) failed.add(id);
      return { batchItemFailures: [...failed].map((itemIdentifier) => ({ itemIdentifier })) };
    });
}
