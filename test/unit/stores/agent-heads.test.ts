/** What the call path reads of an agent (shared/repositories/agent-heads.ts): its head and a version by number. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentKeys } from '../../../shared/db/keys.js';
import { agentHeadOf, getAgentVersionNumber, readAgentHead } from '../../../shared/repositories/agent-heads.js';
import { inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const AGENT = 'agt_01JAAAAAAAAAAAAAAAAAAAAAAA';
beforeEach(() => table.reset());

describe('readAgentHead', () => {
  it('reads the head strongly consistently (only the two fields)', async () => {
    table.put({ ...agentKeys.agent(T, AGENT), type: 'agent', version_count: 2, latest_version_id: 'agv_2' });
    expect(await readAgentHead(T, AGENT)).toEqual({ version_count: 2, latest_version_id: 'agv_2' });
    expect(inputsOf(GetCommand)[0]).toMatchObject({
      Key: agentKeys.agent(T, AGENT),
      ConsistentRead: true,
      ProjectionExpression: 'version_count, latest_version_id',
    });
  });

  it('a never-published agent is 0 / null; an unknown one undefined; a malformed id reads nothing', async () => {
    expect(agentHeadOf({})).toEqual({ version_count: 0, latest_version_id: null });
    expect(await readAgentHead(T, AGENT)).toBeUndefined();
    expect(await readAgentHead(T, 'nope')).toBeUndefined();
    expect(inputsOf(GetCommand)).toHaveLength(1);
  });
});

describe('getAgentVersionNumber', () => {
  it('answers the version as published, without its storage keys', async () => {
    table.put({ ...agentKeys.version(T, AGENT, 3), type: 'agent_version', tenant_id: T, id: 'agv_3', version: 3, definition: { name: 'v3' } });
    expect(await getAgentVersionNumber(T, AGENT, 3)).toEqual({ id: 'agv_3', version: 3, definition: { name: 'v3' } });
    expect(await getAgentVersionNumber(T, AGENT, 4)).toBeUndefined();
    expect(inputsOf(GetCommand).every((g) => g.ConsistentRead === true)).toBe(true);
  });
});
