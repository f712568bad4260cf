/**
 * Runtime configuration, read from the environment. On AWS the CDK stack sets these;
 * locally bin/local.ts (and the test harness) set them before any handler is imported.
 * The *_ENDPOINT variables exist only locally: they point the SDK at DynamoDB Local and
 * the SQS/S3 emulator. Same code, only endpoints differ.
 */
export const env = {
  get tableName(): string {
    return required('TABLE_NAME');
  },
  get region(): string {
    return process.env.AWS_REGION ?? 'us-east-1';
  },
  get dynamoEndpoint(): string | undefined {
    return process.env.DYNAMODB_ENDPOINT || undefined;
  },
  get sqsEndpoint(): string | undefined {
    return process.env.SQS_ENDPOINT || undefined;
  },
  get s3Endpoint(): string | undefined {
    return process.env.S3_ENDPOINT || undefined;
  },
  queueUrl(envVar: string): string {
    return required(envVar);
  },
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}

/** Credentials for local emulators, which accept anything but the SDK insists on some. */
export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };
