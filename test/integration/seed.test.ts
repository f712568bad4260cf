import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { PLATFORM_SCHEMA_VERSION, seedPlatformData } from '../../shared/seed/platform.js';
import { useTestEnvironment } from '../support/environment.js';

const env = useTestEnvironment({ queues: false, bucket: false });

describe('platform seed', () => {
  it('writes platform records once and is idempotent on re-run', async () => {
    const first = await seedPlatformData();
    expect(first.written).toBeGreaterThan(0);
    const before = await db().send(new GetCommand({ TableName: env.tableName, Key: { pk: 'PLATFORM', sk: 'META' } }));
    expect(before.Item?.schema_version).toBe(PLATFORM_SCHEMA_VERSION);
    const second = await seedPlatformData();
    expect(second).toEqual({ written: 0, existing: first.written });
    const after = await db().send(new GetCommand({ TableName: env.tableName, Key: { pk: 'PLATFORM', sk: 'META' } }));
    expect(after.Item).toEqual(before.Item);
  });
});
