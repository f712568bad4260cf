/** Compliance profiles (shared/repositories/compliance-profiles.ts): create only if new, read, revisioned update, newest-first pages. */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentKeys } from '../../../shared/db/keys.js';
import { createProfile, getProfile, listProfiles, updateProfile } from '../../../shared/repositories/compliance-profiles.js';
import { conditionFailed, ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

/** The instant the caller hands the store. */
const AT = new Date('2026-03-01T12:00:00.000Z');

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const input = { name: 'Reminders', call_purpose: 'informational' as const, subject: 'appointment_reminders', seller_name: 'Acme' };
beforeEach(() => table.reset());

describe('compliance profiles store', () => {
  it('creates a profile at revision 1, only if new, with no calling window unless given', async () => {
    const p = await createProfile(T, input, AT);
    expect(p).toMatchObject({ ...input, calling_window: null, revision: 1 });
    expect(p.id).toMatch(/^cpr_/);
    const put = inputsOf(PutCommand)[0]!;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toMatchObject({ ...agentKeys.complianceProfile(T, p.id), type: 'compliance_profile', tenant_id: T });
    expect(await getProfile(T, p.id)).toEqual(p);
  });

  it('reads eventually consistent by default, strongly when asked; a malformed id reads nothing', async () => {
    const p = await createProfile(T, input, AT);
    await getProfile(T, p.id);
    await getProfile(T, p.id, true);
    expect(table.sent.filter((s) => s.command === 'GetItem').map((s) => s.input.ConsistentRead)).toEqual([false, true]);
    expect(await getProfile(T, 'bad')).toBeUndefined();
    expect(table.sent.filter((s) => s.command === 'GetItem')).toHaveLength(2);
  });

  it('updates only an existing profile, bumping its revision; a missing one is undefined', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { ...input, id: 'cpr_1', revision: 2, name: 'New', created_at: 'c', updated_at: 'u' } });
    expect(await updateProfile(T, 'cpr_01JAAAAAAAAAAAAAAAAAAAAAAA', { name: 'New' }, AT)).toMatchObject({ name: 'New', revision: 2 });
    const u = inputsOf(UpdateCommand)[0]!;
    expect(u.Key).toEqual(agentKeys.complianceProfile(T, 'cpr_01JAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(u.ConditionExpression).toBe('attribute_exists(pk)');
    expect(u.UpdateExpression).toContain('#inc = #inc + :one');
    expect(u.ExpressionAttributeNames['#inc']).toBe('revision');
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await updateProfile(T, 'cpr_01JAAAAAAAAAAAAAAAAAAAAAAA', { name: 'New' }, AT)).toBeUndefined();
    expect(await updateProfile(T, 'bad', { name: 'New' }, AT)).toBeUndefined();
    expect(inputsOf(UpdateCommand)).toHaveLength(2);
  });

  it('lists newest first, a page at a time, the cursor resuming after the last', async () => {
    const ids = ['cpr_01JAAAAAAAAAAAAAAAAAAAAAA1', 'cpr_01JAAAAAAAAAAAAAAAAAAAAAA2', 'cpr_01JAAAAAAAAAAAAAAAAAAAAAA3'];
    for (const id of ids)
      table.put({ ...agentKeys.complianceProfile(T, id), type: 'compliance_profile', ...input, id, revision: 1, created_at: 'c', updated_at: 'u' });
    const first = await listProfiles(T, { limit: 2 });
    expect(first.data.map((p) => p.id)).toEqual([ids[2], ids[1]]);
    expect(first.has_more).toBe(true);
    const second = await listProfiles(T, { limit: 2, cursor: first.next_cursor! });
    expect(second).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.data.map((p) => p.id)).toEqual([ids[0]]);
    await expect(listProfiles('ten_01JBBBBBBBBBBBBBBBBBBBBBBB', { limit: 2, cursor: first.next_cursor! })).rejects.toMatchObject({
      issues: [expect.objectContaining({ type: 'cursor_invalid' })],
    });
  });
});
