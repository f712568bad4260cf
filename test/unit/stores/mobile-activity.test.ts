/** The mobile activity timeline (shared/repositories/mobile-activity.ts): fixed labels, keyset pages newest first. */
import { beforeEach, describe, expect, it } from 'vitest';
import { activityKeys } from '../../../shared/db/keys.js';
import { ACTIVITY_LABELS, activityItem, activityPage } from '../../../shared/repositories/mobile-activity.js';
import { memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
beforeEach(() => table.reset());

const add = (at: string, resource: string) => {
  const put = activityItem(T, { kind: 'voicemail', resource_id: resource, label: 'voicemail' }, new Date(at)).Put!;
  table.put(put.Item as never);
  return put;
};

describe('mobile activity', () => {
  it('an activity is put only if absent, keyed by its instant, with a fixed label and no caller content', () => {
    const put = add('2026-11-18T15:00:00.000Z', 'vm_1');
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    const item = put.Item as Record<string, string>;
    expect(item.pk).toBe(activityKeys.partition(T));
    expect(item.sk).toBe(`ACT#2026-11-18T15:00:00.000Z#${item.id}`);
    expect(Object.keys(item).sort()).toEqual(['id', 'kind', 'label', 'occurred_at', 'pk', 'resource_id', 'sk', 'type']);
    expect(item.label).toBe(ACTIVITY_LABELS.voicemail);
  });

  it('pages newest first; an activity added while paging does not shift the next page', async () => {
    add('2026-11-18T15:00:01.000Z', 'r1');
    add('2026-11-18T15:00:02.000Z', 'r2');
    add('2026-11-18T15:00:03.000Z', 'r3');
    const first = await activityPage(T, { limit: 2 });
    expect(first.data.map((a) => a.resource_id)).toEqual(['r3', 'r2']);
    add('2026-11-18T15:00:04.000Z', 'r4');
    const second = await activityPage(T, { limit: 2, cursor: first.next_cursor! });
    expect(second.data.map((a) => a.resource_id)).toEqual(['r1']);
    expect(second.has_more).toBe(false);
    expect(Object.keys(second.data[0]!).sort()).toEqual(['id', 'kind', 'label', 'occurred_at', 'resource_id']);
  });
});
