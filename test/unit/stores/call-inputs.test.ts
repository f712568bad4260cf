/** The call path's batched point reads (shared/repositories/call-inputs.ts) and the shared BatchGet (shared/db/batch-get.ts). */
import { beforeEach, describe, expect, it } from 'vitest';
import { agentKeys, keys, platformKeys, suppressionKeys } from '../../../shared/db/keys.js';
import { readCallPointFacts } from '../../../shared/repositories/call-inputs.js';
import { memoryTable } from '../../support/document-client-mock.js';
import { activeSuppressionItem, dncPointerItem, telephonyAccountItem } from '../../support/store-items.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const AGENT = 'agt_01JAAAAAAAAAAAAAAAAAAAAAAA';
const ACCOUNT = 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA';
const OTHER_ACCOUNT = 'tac_01JBBBBBBBBBBBBBBBBBBBBBBB';
const PHONE = '+12125550199';

beforeEach(() => {
  table.reset();
  table.put({ ...agentKeys.agent(T, AGENT), type: 'agent', id: AGENT, version_count: 3, latest_version_id: 'agv_01JCCCCCCCCCCCCCCCCCCCCCCC' });
  table.put(telephonyAccountItem(T, ACCOUNT, { ftc_san_refs: [{ san: 'SAN-1', area_codes: ['212'] }], credentials_sealed: 'secret' }));
  table.put(dncPointerItem('212', '2026-11-01'));
});

describe('readCallPointFacts', () => {
  it('reads the agent item, the ACTIVE suppression item, the DNC pointer and the accounts in ONE strongly consistent BatchGetItem', async () => {
    const facts = await readCallPointFacts({ tenantId: T, agentId: AGENT, phone: PHONE, dncAreaCode: '212', accountIds: [ACCOUNT, ACCOUNT, OTHER_ACCOUNT] });
    expect(table.sent.map((s) => s.command)).toEqual(['BatchGetItem']);
    const req = Object.values(table.sent[0]!.input.RequestItems as Record<string, { Keys: unknown[]; ConsistentRead: boolean }>)[0]!;
    expect(req.ConsistentRead).toBe(true);
    expect(req.Keys).toEqual([
      agentKeys.agent(T, AGENT),
      suppressionKeys.active(T, PHONE),
      platformKeys.dncPointer('212'),
      keys.telephonyAccount(T, ACCOUNT),
      keys.telephonyAccount(T, OTHER_ACCOUNT),
    ]);
    expect(facts.agent).toEqual({ version_count: 3, latest_version_id: 'agv_01JCCCCCCCCCCCCCCCCCCCCCCC' });
    expect(facts.suppressed).toBe(false);
    expect(facts.dncPointer).toMatchObject({ generation: 'g1' });
    // Only what the caller choice reads: the sealed credentials never leave the store here.
    expect(facts.accounts).toEqual([
      { id: ACCOUNT, verification_status: 'mock_verified', ftc_san_refs: [{ san: 'SAN-1', area_codes: ['212'] }], provider: 'mock' },
    ]);
  });

  it('reads the suppression every time: an entry added between two reads is seen by the second', async () => {
    const read = () => readCallPointFacts({ tenantId: T, agentId: AGENT, phone: PHONE, dncAreaCode: null, accountIds: [] });
    expect((await read()).suppressed).toBe(false);
    table.put(activeSuppressionItem(T, PHONE));
    expect((await read()).suppressed).toBe(true);
    expect(table.sent.filter((s) => s.command === 'BatchGetItem')).toHaveLength(2);
  });

  it('asks again for the keys a batch left unprocessed, and leaves out the agent when none is named (a pinned version)', async () => {
    table.leaveUnprocessedOnce(keys.telephonyAccount(T, ACCOUNT));
    const facts = await readCallPointFacts({ tenantId: T, phone: PHONE, dncAreaCode: null, accountIds: [ACCOUNT] });
    expect(facts.agent).toBeUndefined();
    expect(facts.accounts.map((a) => a.id)).toEqual([ACCOUNT]);
    expect(table.sent.map((s) => s.command)).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect(Object.values(table.sent[1]!.input.RequestItems as Record<string, { Keys: unknown[] }>)[0]!.Keys).toEqual([keys.telephonyAccount(T, ACCOUNT)]);
  });
});
