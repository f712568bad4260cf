/**
 * What the call path reads of an agent: the agent item's head (its latest version's number
 * and immutable id) and a version by number. Apart from agents.ts (drafts, publishing) so
 * the call path's bundles carry only these reads.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { agentKeys } from '../db/keys.js';
import { isId } from '../ids.js';
import type { ProfileFacts } from '../policy/compliance/types.js';

/** What the agent item says of its versions: the latest's number and immutable id (0 and null: never published). */
export interface AgentHead {
  version_count: number;
  latest_version_id: string | null;
}

export const agentItemKey = (tenantId: string, agentId: string) => agentKeys.agent(tenantId, agentId);

export const agentHeadOf = (item: Record<string, unknown>): AgentHead => ({
  version_count: (item.version_count as number | undefined) ?? 0,
  latest_version_id: (item.latest_version_id as string | null | undefined) ?? null,
});

/** The agent's head, strongly consistent; undefined: no such agent. */
export async function readAgentHead(tenantId: string, agentId: string): Promise<AgentHead | undefined> {
  if (!isId(agentId)) return undefined;
  const out = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: agentItemKey(tenantId, agentId),
      ConsistentRead: true,
      ProjectionExpression: 'version_count, latest_version_id',
    }),
  );
  return out.Item ? agentHeadOf(out.Item) : undefined;
}

/**
 * What the call path reads of a published version: its ids and its frozen compliance profile
 * (an AgentVersion, shared/schemas/agents.ts, is one). Declared here rather than taken from
 * the agents schema, which would bring every schema an agent presents into the call path's
 * bundles, type-only imports included.
 */
export interface PinnedVersion {
  id: string;
  agent_id: string;
  /** A version stored before calling windows existed has none. */
  compliance_profile: (Omit<ProfileFacts, 'calling_window'> & { calling_window?: ProfileFacts['calling_window'] }) | null;
}

/** A version item as published, without its storage keys (the whole item: only its type is narrow). */
const storedVersion = (item: Record<string, unknown>): PinnedVersion => {
  const { pk: _pk, sk: _sk, type: _type, tenant_id: _tenant, ...version } = item;
  return version as unknown as PinnedVersion;
};

/** Version `n` of the agent, strongly consistent (a version is written once and never changed). */
export async function getAgentVersionNumber(tenantId: string, agentId: string, n: number): Promise<PinnedVersion | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: agentKeys.version(tenantId, agentId, n), ConsistentRead: true }));
  return out.Item ? storedVersion(out.Item) : undefined;
}
