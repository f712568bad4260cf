import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { tenantPk } from '../../shared/db/keys.js';
import { ValidationError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { queryPage } from '../../shared/pagination/page.js';
import { useTestEnvironment } from '../support/environment.js';

const env = useTestEnvironment({ queues: false, bucket: false });
const tenant = newId('ten');
const other = newId('ten');

beforeAll(async () => {
  const things = Array.from({ length: 5 }, (_, i) => ({ PutRequest: { Item: { pk: 'PLATFORM#THINGS', sk: `THING#${i}`, n: i } } }));
  await db().send(
    new BatchWriteCommand({ RequestItems: { [env.tableName]: [...things, { PutRequest: { Item: { pk: tenantPk(other), sk: 'THING#9', n: 9 } } }] } }),
  );
});

const page = (partition: string, opts: { tenantId?: string; cursor?: string } = {}) =>
  queryPage({
    tenantId: opts.tenantId ?? tenant,
    scope: 'things',
    platformPartition: partition,
    skPrefix: 'THING#',
    newestFirst: false,
    limit: 3,
    cursor: opts.cursor,
    map: (i) => i.n as number,
  });

describe('queryPage over a platform collection', () => {
  it('pages a PLATFORM# partition for any tenant, the cursor bound to the reader', async () => {
    const first = await page('PLATFORM#THINGS');
    expect(first.data).toEqual([0, 1, 2]);
    expect((await page('PLATFORM#THINGS', { cursor: first.next_cursor! })).data).toEqual([3, 4]);
    await expect(page('PLATFORM#THINGS', { cursor: first.next_cursor!, tenantId: other })).rejects.toBeInstanceOf(ValidationError);
  });

  it('refuses to read a tenant partition through the platform option', async () => {
    await expect(page(tenantPk(other))).rejects.toThrow(/PLATFORM#/);
  });
});
