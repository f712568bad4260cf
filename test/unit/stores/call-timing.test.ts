/** The call's timing fields read alone (shared/repositories/call-timing.ts). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { callKeys } from '../../../shared/db/keys.js';
import { getCallTiming } from '../../../shared/repositories/call-timing.js';
import { inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
beforeEach(() => table.reset());

describe('getCallTiming', () => {
  it('reads the projection strongly consistently and answers absent fields as null', async () => {
    table.put({ ...callKeys.call(T, CALL), state: 'in_progress', answered_at: '2026-11-18T15:00:05Z', created_at: 'c', updated_at: 'u', transcript: 'x' });
    expect(await getCallTiming(T, CALL)).toEqual({
      state: 'in_progress',
      answered_at: '2026-11-18T15:00:05Z',
      ended_at: null,
      duration_seconds: null,
      created_at: 'c',
      updated_at: 'u',
    });
    expect(inputsOf(GetCommand)[0]).toMatchObject({
      Key: callKeys.call(T, CALL),
      ConsistentRead: true,
      ProjectionExpression: '#state, answered_at, ended_at, duration_seconds, created_at, updated_at',
      ExpressionAttributeNames: { '#state': 'state' },
    });
  });

  it('answers undefined for an unknown call, and reads nothing for a malformed id', async () => {
    expect(await getCallTiming(T, CALL)).toBeUndefined();
    expect(await getCallTiming(T, 'not-an-id')).toBeUndefined();
    expect(inputsOf(GetCommand)).toHaveLength(1);
  });
});
