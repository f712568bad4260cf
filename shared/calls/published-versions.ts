/**
 * The agent version a call is judged and pinned with, kept per warm instance by its
 * IMMUTABLE id: a version is written once by its publish and never changed, and a new
 * publish makes a new id, which the agent item (read strongly consistently on every
 * request) names. So a hit can only be the very version the agent item points at now;
 * what changes (the agent item, suppressions, consents, numbers) is never kept here.
 */

import { RecentlyUsed } from '../recently-used.js';
import { type AgentHead, getAgentVersionNumber, type PinnedVersion } from '../repositories/agent-heads.js';

/** Enough for every agent a tenant's instance calls with; the least recently used goes first. */
const versions = new RecentlyUsed<string, PinnedVersion>(256);

const slot = (tenantId: string, versionId: string) => `${tenantId}|${versionId}`;

/** The version the agent item names as its latest, or undefined when it was never published. */
export async function latestVersionOf(tenantId: string, agentId: string, head: AgentHead): Promise<PinnedVersion | undefined> {
  if (head.version_count === 0) return undefined;
  const id = head.latest_version_id;
  const hit = id ? versions.get(slot(tenantId, id)) : undefined;
  if (hit) return hit;
  const version = await getAgentVersionNumber(tenantId, agentId, head.version_count);
  // Kept only when the item read is the one the agent names (an agent stored before it named its latest id is read each time).
  if (version && id && version.id === id && version.agent_id === agentId) versions.set(slot(tenantId, id), version);
  return version;
}
