/** Contact attempts (shared/repositories/contact-attempts.ts): the attempt put and the 24 h filter the engine reads them by. */
import { describe, expect, it } from 'vitest';
import { contactKeys } from '../../../shared/db/keys.js';
import { attemptFactOf, contactAttemptPut, isAttemptItem, recentAttemptFilter } from '../../../shared/repositories/contact-attempts.js';
import { TABLE } from '../../support/document-client-mock.js';

const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CON = 'con_01JAAAAAAAAAAAAAAAAAAAAAAA';
const ATT = 'att_01JAAAAAAAAAAAAAAAAAAAAAAA';

describe('contact attempts', () => {
  it("puts a new attempt in the contact's partition, only if absent", () => {
    const put = contactAttemptPut({ id: ATT, tenant_id: T, contact_id: CON, subject: 's', placed_at: null, created_at: 'c', call_id: 'cal_1' }).Put!;
    expect(put.TableName).toBe(TABLE);
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toEqual({
      ...contactKeys.attempt(T, CON, ATT),
      type: 'contact_attempt',
      id: ATT,
      tenant_id: T,
      contact_id: CON,
      subject: 's',
      placed_at: null,
      created_at: 'c',
      call_id: 'cal_1',
    });
    expect(isAttemptItem(put.Item!)).toBe(true);
    expect(isAttemptItem({ sk: 'CONSENT#x' })).toBe(false);
  });

  it('keeps attempts placed in the 24 h up to the instant (told by type, not the sort key)', () => {
    const f = recentAttemptFilter(new Date('2026-11-18T15:00:00.000Z'));
    expect(f.expression).toBe('(#itemType = :attemptType AND #placedAt BETWEEN :placedSince AND :placedUntil)');
    expect(f.names).toEqual({ '#itemType': 'type', '#placedAt': 'placed_at' });
    expect(f.values).toEqual({ ':attemptType': 'contact_attempt', ':placedSince': '2026-11-17T15:00:00.000Z', ':placedUntil': '2026-11-18T15:00:00.000Z' });
  });

  it('an attempt without a subject never matches a profile subject', () => {
    expect(attemptFactOf({ placed_at: 'p', subject: null })).toEqual({ placed_at: 'p', subject: '' });
    expect(attemptFactOf({ placed_at: 'p', subject: 'solar' })).toEqual({ placed_at: 'p', subject: 'solar' });
  });
});
