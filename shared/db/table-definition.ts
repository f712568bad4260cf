/**
 * The one DynamoDB table, defined once: the CDK stack and the local runtime both build
 * it from this object, so key names, GSIs and the TTL attribute cannot drift.
 * Access patterns and key shapes are listed in docs/architecture.md.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes late, so reads also check `expires_at`. */
  ttlAttribute: 'ttl',
  globalSecondaryIndexes: [
    /** gsi1: lookups by a globally unique external handle (e.g. a carrier number). */
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  ],
} as const;

export const DEFAULT_LOCAL_TABLE_NAME = 'voice-control';
