/** The list members page a campaign's scrub resumes from (aws-sdk-client-mock): the index, the cursor in and out, the page size. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { contactKeys } from '../../../shared/db/keys.js';
import { listMembersPage } from '../../../shared/repositories/contact-lists.js';
import { ddb } from '../../support/document-client-mock.js';

const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const L = 'lst_01JAAAAAAAAAAAAAAAAAAAAAAA';

beforeEach(() => ddb.reset());

describe('listMembersPage', () => {
  it('reads one page of the members index from the cursor and hands back the next one', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ contact_id: 'con_1' }, { contact_id: 'con_2' }], LastEvaluatedKey: { pk: 'p', sk: 's' } });
    expect(await listMembersPage(T, L, { pk: 'a', sk: 'b' }, 50)).toEqual({ ids: ['con_1', 'con_2'], next: { pk: 'p', sk: 's' } });
    const sent = ddb.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(sent).toMatchObject({ IndexName: 'gsi1', Limit: 50, ExclusiveStartKey: { pk: 'a', sk: 'b' } });
    expect(sent.ExpressionAttributeValues).toEqual({ ':pk': contactKeys.listMembersIndexPartition(T, L) });
  });
  it('from the start without a cursor; the last page has no next', async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    expect(await listMembersPage(T, L, null, 50)).toEqual({ ids: [], next: null });
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey).toBeUndefined();
  });
});
