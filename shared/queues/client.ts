import { SQSClient } from '@aws-sdk/client-sqs';
import { env, localCredentials } from '../config.js';

let client: SQSClient | undefined;

export function sqs(): SQSClient {
  if (!client) {
    const endpoint = env.sqsEndpoint;
    client = new SQSClient(endpoint ? { endpoint, region: env.region, credentials: localCredentials } : {});
  }
  return client;
}

export function resetSqsClient(): void {
  client = undefined;
}
