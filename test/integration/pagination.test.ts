import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { tenantPk } from '../../shared/db/keys.js';
import { ValidationError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { parseFilters } from '../../shared/pagination/filters.js';
import { queryPage } from '../../shared/pagination/page.js';
import { useTestEnvironment } from '../support/environment.js';

const env = useTestEnvironment({ queues: false, bucket: false });
const tenant = newId('ten');
const other = newId('ten');
const items = Array.from({ length: 57 }, (_, i) => ({
  pk: tenantPk(tenant),
  sk: `THING#${String(i).padStart(3, '0')}`,
  n: i,
  colour: i % 10 === 0 ? 'red' : 'blue', // 6 red: 0, 10, ..., 50
}));

beforeAll(async () => {
  for (let i = 0; i < items.length; i += 25) {
    await db().send(new BatchWriteCommand({ RequestItems: { [env.tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
  await db().send(
    new BatchWriteCommand({ RequestItems: { [env.tableName]: [{ PutRequest: { Item: { pk: tenantPk(other), sk: 'THING#000', n: 0, colour: 'red' } } }] } }),
  );
});

const page = (opts: { limit: number; cursor?: string; filter?: Record<string, string>; tenantId?: string }) =>
  queryPage({
    tenantId: opts.tenantId ?? tenant,
    scope: 'things',
    skPrefix: 'THING#',
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: parseFilters(opts.filter ?? {}, { colour: { kind: 'enum', values: ['red', 'blue'] } }).conditions,
    map: (i) => i.n as number,
  });

describe('cursor pages on DynamoDB Local', () => {
  it('walks the whole collection newest first without gaps or repeats, has_more exact', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const p = await page({ limit: 20, cursor });
      pages++;
      seen.push(...p.data);
      expect(p.has_more).toBe(p.next_cursor !== null);
      if (!p.has_more) break;
      cursor = p.next_cursor!;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(items.map((i) => i.n).reverse());
  });

  it('has_more is false when the page ends exactly at the last item', async () => {
    const p = await page({ limit: 57 });
    expect(p.data).toHaveLength(57);
    expect(p.has_more).toBe(false);
    expect(p.next_cursor).toBeNull();
  });

  it('keeps reading past DynamoDB Limit until a filtered page is full', async () => {
    const first = await page({ limit: 4, filter: { colour: 'red' } });
    expect(first.data).toEqual([50, 40, 30, 20]);
    expect(first.has_more).toBe(true);
    const second = await page({ limit: 4, filter: { colour: 'red' }, cursor: first.next_cursor! });
    expect(second.data).toEqual([10, 0]);
    expect(second.has_more).toBe(false);
  });

  it('refuses a cursor from another tenant or another query with a 422 on ["query","cursor"]', async () => {
    const first = await page({ limit: 5 });
    const foreign = page({ limit: 5, cursor: first.next_cursor!, tenantId: other });
    await expect(foreign).rejects.toBeInstanceOf(ValidationError);
    await expect(foreign).rejects.toMatchObject({ issues: [{ loc: ['query', 'cursor'], type: 'cursor_invalid' }] });
    await expect(page({ limit: 5, cursor: first.next_cursor!, filter: { colour: 'red' } })).rejects.toBeInstanceOf(ValidationError);
    await expect(page({ limit: 5, cursor: `${first.next_cursor!.slice(0, -2)}xx` })).rejects.toBeInstanceOf(ValidationError);
  });
});
