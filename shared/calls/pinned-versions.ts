/**
 * A call's pinned agent version and its template's outcome type, kept per warm instance by the
 * version's IMMUTABLE id: a published version is written once and never changed (a new publish
 * is a new id), and its template is named by id and version, so a hit is exactly what the table
 * holds. The runtime's brief and the events route (an outcome's type, a send_sms grant) read the
 * same two items for every call of a campaign, sequentially, while the contact waits on a tool.
 */
import { RecentlyUsed } from '../recently-used.js';
import { getTemplate } from '../repositories/agent-templates.js';
import { getAgentVersion } from '../repositories/agents.js';
import type { TemplateResource } from '../schemas/agent-templates.js';
import type { AgentVersion } from '../schemas/agents.js';

/** The pinned version with its template's outcome type (the call path's narrow `PinnedVersion` is agent-heads'). */
export interface VersionWithOutcome {
  version: AgentVersion;
  outcome_type: TemplateResource['outcome_type'];
}

const pinned = new RecentlyUsed<string, VersionWithOutcome>(256);

/** undefined when the version or its template is not there (nothing is kept then). */
export async function pinnedVersion(tenantId: string, versionId: string): Promise<VersionWithOutcome | undefined> {
  const slot = `${tenantId}|${versionId}`;
  const hit = pinned.get(slot);
  if (hit) return hit;
  const version = await getAgentVersion(tenantId, versionId);
  if (!version) return undefined;
  const template = await getTemplate(version.definition.template_id, version.definition.template_version);
  if (!template) return undefined;
  const found = { version, outcome_type: template.outcome_type };
  pinned.set(slot, found);
  return found;
}
