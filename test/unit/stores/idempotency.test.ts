/** The idempotency store's pieces for a key taken inside a transaction (shared/repositories/idempotency.ts). */
import { describe, expect, it } from 'vitest';
import { completedRecordPut, LOCK_MS, RETENTION_MS, readRecord, recordOutcome } from '../../../shared/repositories/idempotency.js';
import { memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const scope = { tenantId: 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA', routeId: 'queueCall', key: 'k-1' };
const NOW = 1_800_000_000_000;

describe('recordOutcome', () => {
  it('a key is free when absent, expired, or claimed by a request whose lock ran out', () => {
    expect(recordOutcome(undefined, NOW)).toEqual({ outcome: 'free' });
    expect(recordOutcome({ status: 'completed', fingerprint: 'f', response: { status: 200, body: '{}' }, expires_at: NOW - 1 }, NOW)).toEqual({
      outcome: 'free',
    });
    expect(recordOutcome({ status: 'in_progress', fingerprint: 'f', lock_expires_at: NOW - 1, expires_at: NOW + RETENTION_MS }, NOW)).toEqual({
      outcome: 'free',
    });
  });

  it('a live record is a replay (completed) or in progress, with its fingerprint', () => {
    expect(recordOutcome({ status: 'completed', fingerprint: 'f', response: { status: 200, body: '{"a":1}' }, expires_at: NOW + 1 }, NOW)).toEqual({
      outcome: 'replay',
      response: { status: 200, body: '{"a":1}' },
      fingerprint: 'f',
    });
    expect(recordOutcome({ status: 'in_progress', fingerprint: 'f', lock_expires_at: NOW + LOCK_MS, expires_at: NOW + RETENTION_MS }, NOW)).toEqual({
      outcome: 'in_progress',
      fingerprint: 'f',
    });
  });
});

describe('completedRecordPut', () => {
  it('writes the completed record for 24 h only where a claim could have been taken', () => {
    const put = completedRecordPut(scope, 'fp', { status: 200, body: '{}' }, NOW);
    expect(put.Item).toMatchObject({
      pk: `TENANT#${scope.tenantId}`,
      sk: 'IDEMPOTENCY#queueCall#k-1',
      status: 'completed',
      fingerprint: 'fp',
      response: { status: 200, body: '{}' },
      expires_at: NOW + RETENTION_MS,
      ttl: Math.ceil((NOW + RETENTION_MS) / 1000),
    });
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk) OR expires_at < :now OR (#status = :in_progress AND lock_expires_at < :now)');
    expect(put.ExpressionAttributeValues).toEqual({ ':now': NOW, ':in_progress': 'in_progress' });
  });

  it('readRecord reads the record strongly consistently', async () => {
    table.reset();
    await readRecord(scope);
    expect(table.sent).toEqual([
      {
        command: 'GetItem',
        input: expect.objectContaining({ ConsistentRead: true, Key: { pk: `TENANT#${scope.tenantId}`, sk: 'IDEMPOTENCY#queueCall#k-1' } }),
      },
    ]);
  });
});
