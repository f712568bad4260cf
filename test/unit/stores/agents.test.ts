/** Agents (shared/repositories/agents.ts): drafts, the version pointer, and publishing N+1 under the count read. */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentKeys } from '../../../shared/db/keys.js';
import {
  type AgentRecord,
  agentExists,
  ComplianceProfileRequired,
  createAgent,
  getAgentRecord,
  getAgentVersion,
  latestPublishedVersion,
  listAgents,
  NoChanges,
  presentAgent,
  publishAgent,
} from '../../../shared/repositories/agents.js';
import { ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const A = 'agt_01JAAAAAAAAAAAAAAAAAAAAAAA';
const agent = {
  id: A,
  tenant_id: T,
  name: 'SDR',
  status: 'draft',
  version_count: 0,
  compliance_profile_id: 'cpr_01JAAAAAAAAAAAAAAAAAAAAAAA',
  tools: [],
  direct_reps: [],
  created_at: 'c',
  updated_at: 'u',
} as unknown as AgentRecord;
const profile = {
  id: 'cpr_01JAAAAAAAAAAAAAAAAAAAAAAA',
  name: 'P',
  call_purpose: 'marketing',
  subject: 's',
  seller_name: 'Acme',
  calling_window: null,
} as never;
let ids = 0;
const PUBLISHED_AT = new Date('2026-11-18T15:00:00.000Z');
const inputs = { profile: async () => profile, objectives: async () => [], newVersionId: () => `agv_01JAAAAAAAAAAAAAAAAAAAAAA${++ids}`, at: PUBLISHED_AT };
beforeEach(() => table.reset());

describe('agents store', () => {
  it('creates an agent only if new; reads it (consistent when asked); a never-published one has no latest version', async () => {
    await createAgent(agent);
    await expect(createAgent(agent)).rejects.toThrow();
    expect(await getAgentRecord(T, A)).toMatchObject({ id: A, type: 'agent' });
    await getAgentRecord(T, A, true);
    expect(table.sent.filter((s) => s.command === 'GetItem').map((s) => s.input.ConsistentRead)).toEqual([false, true]);
    expect(presentAgent(agent)).toMatchObject({ latest_version: null, latest_version_id: null, llm_route: null });
    expect(await agentExists(T, A)).toBe(true);
    expect(await agentExists(T, 'agt_01JZZZZZZZZZZZZZZZZZZZZZZZ')).toBe(false);
    expect(await agentExists(T, 'bad')).toBe(false);
    expect((await listAgents(T, { limit: 5, filters: [] })).data.map((a) => a.id)).toEqual([A]);
  });

  it('publishes N+1 under the count read: the agent head, the version and its pointer, each only once', async () => {
    await createAgent(agent);
    ddb.on(TransactWriteCommand).resolves({});
    const v = (await publishAgent(T, A, inputs))!;
    expect(v).toMatchObject({
      agent_id: A,
      version: 1,
      compliance_profile: profile,
      published_at: PUBLISHED_AT.toISOString(),
      definition: { status: 'published', latest_version: 1 },
    });
    const [head, put, pointer] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(head.Update).toMatchObject({
      ConditionExpression: 'attribute_exists(pk) AND version_count = :expected',
      ExpressionAttributeValues: { ':expected': 0, ':n': 1, ':id': v.id },
    });
    expect(put.Put).toMatchObject({ Item: agentKeys.version(T, A, 1), ConditionExpression: 'attribute_not_exists(pk)' });
    expect(pointer.Put).toMatchObject({
      Item: { ...agentKeys.versionPointer(T, v.id), agent_id: A, version: 1 },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  });

  it('publishing the same content again is NoChanges naming the latest; reads find the version by id and as latest', async () => {
    await createAgent(agent);
    ddb.on(TransactWriteCommand).resolves({});
    const v = (await publishAgent(T, A, inputs))!;
    const tx = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    table.put(tx[1].Put.Item);
    table.put(tx[2].Put.Item);
    table.put({ ...table.get(agentKeys.agent(T, A))!, ...agentKeys.agent(T, A), version_count: 1, latest_version_id: v.id });
    expect(await getAgentVersion(T, v.id)).toMatchObject({ id: v.id, version: 1 });
    expect(await latestPublishedVersion(T, A)).toMatchObject({ id: v.id });
    const err = await publishAgent(T, A, inputs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoChanges);
    expect((err as NoChanges).latest).toMatchObject({ id: v.id, version: 1 });
  });

  it('no profile named or found is ComplianceProfileRequired; an unknown agent is undefined', async () => {
    expect(await publishAgent(T, A, inputs)).toBeUndefined();
    await createAgent({ ...agent, compliance_profile_id: null } as never);
    await expect(publishAgent(T, A, inputs)).rejects.toBeInstanceOf(ComplianceProfileRequired);
    table.reset();
    await createAgent(agent);
    await expect(publishAgent(T, A, { ...inputs, profile: async () => undefined })).rejects.toBeInstanceOf(ComplianceProfileRequired);
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
  });
});
