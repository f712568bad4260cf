/** Platform records (shared/repositories/platform-records.ts): seeded once, never overwritten. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { putPlatformRecordIfAbsent } from '../../../shared/repositories/platform-records.js';
import { ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
beforeEach(() => table.reset());

describe('putPlatformRecordIfAbsent', () => {
  it('writes the record only where none is, and answers false (keeping the first) after', async () => {
    expect(await putPlatformRecordIfAbsent({ pk: 'PLATFORM', sk: 'META', version: 1 })).toBe(true);
    expect(await putPlatformRecordIfAbsent({ pk: 'PLATFORM', sk: 'META', version: 2 })).toBe(false);
    expect(table.get({ pk: 'PLATFORM', sk: 'META' })).toEqual({ pk: 'PLATFORM', sk: 'META', version: 1 });
    expect(inputsOf(PutCommand).map((p) => p.ConditionExpression)).toEqual(['attribute_not_exists(pk)', 'attribute_not_exists(pk)']);
  });

  it('rethrows anything but a failed condition', async () => {
    ddb.on(PutCommand).rejects(new Error('throttled'));
    await expect(putPlatformRecordIfAbsent({ pk: 'PLATFORM', sk: 'META' })).rejects.toThrow('throttled');
  });
});
