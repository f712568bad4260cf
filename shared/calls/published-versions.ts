/**
 * The agent version a call is judged and pinned with, kept per warm instance by its
 * IMMUTABLE id: a version is written once by its publish and never changed, and a new
 * publish makes a new id, which the agent item (read strongly consistently on every
 * request) names. So a hit can only be the very version the agent item points at now;
 * what changes (the agent item, suppressions, consents, numbers) is never kept here.
 */
import { type AgentHead, getAgentVersionNumber } from '../repositories/agent-heads.js';
import type { AgentVersion } from '../schemas/agents.js';

/** Enough for every agent a tenant's instance calls with; the oldest read goes first. */
const CAPACITY = 256;
const versions = new Map<string, AgentVersion>();

const slot = (tenantId: string, versionId: string) => `${tenantId}|${versionId}`;

/** The version the agent item names as its latest, or undefined when it was never published. */
export async function latestVersionOf(tenantId: string, agentId: string, head: AgentHead): Promise<AgentVersion | undefined> {
  if (head.version_count === 0) return undefined;
  const id = head.latest_version_id;
  const hit = id ? versions.get(slot(tenantId, id)) : undefined;
  if (hit) {
    // Most recently used last, so the oldest is the first key.
    versions.delete(slot(tenantId, id!));
    versions.set(slot(tenantId, id!), hit);
    return hit;
  }
  const version = await getAgentVersionNumber(tenantId, agentId, head.version_count);
  // Kept only when the item read is the one the agent names (an agent stored before it named its latest id is read each time).
  if (version && id && version.id === id && version.agent_id === agentId) {
    versions.set(slot(tenantId, id), version);
    if (versions.size > CAPACITY) versions.delete(versions.keys().next().value!);
  }
  return version;
}
