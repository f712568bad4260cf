/** A Lambda `Context` for a local invocation, shaped like the one the Lambda runtime passes. */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export const LOCAL_ACCOUNT_ID = '000000000000';

export interface LambdaContextOptions {
  /** The manifest id of the route or worker (the function name on AWS). */
  functionName: string;
  timeoutSeconds: number;
  memoryMb?: number;
  region?: string;
  awsRequestId?: string;
  /** Invocation start; the deadline is start + timeout. */
  startedAt?: number;
}

export function createLambdaContext(opts: LambdaContextOptions): Context {
  const region = opts.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const startedAt = opts.startedAt ?? Date.now();
  const deadline = startedAt + opts.timeoutSeconds * 1000;
  const day = new Date(startedAt).toISOString().slice(0, 10).replaceAll('-', '/');
  const unsupported = (name: string) => () => {
    throw new Error(`context.${name}() is not supported: handlers are async and return their result`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: opts.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT_ID}:function:${opts.functionName}`,
    memoryLimitInMB: String(opts.memoryMb ?? 256),
    awsRequestId: opts.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${opts.functionName}`,
    logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}
