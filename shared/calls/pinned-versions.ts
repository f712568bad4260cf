/**
 * A call's pinned agent version and its template's outcome type, kept per warm instance by the
 * version's immutable id (version-cache.ts); its template is named by id and version, so it is
 * as immutable as the version. The runtime's brief and the events route (an outcome's type, a
 * send_sms grant) read the same two items for every call of a campaign, sequentially, while the
 * contact waits on a tool.
 */
import { getTemplate } from '../repositories/agent-templates.js';
import { getAgentVersion } from '../repositories/agents.js';
import type { TemplateResource } from '../schemas/agent-templates.js';
import type { AgentVersion } from '../schemas/agents.js';
import { VersionCache } from './version-cache.js';

/** The pinned version with its template's outcome type (the call path's narrow `PinnedVersion` is agent-heads'). */
export interface VersionWithOutcome {
  version: AgentVersion;
  outcome_type: TemplateResource['outcome_type'];
}

const pinned = new VersionCache<VersionWithOutcome>();

/** undefined when the version or its template is not there (nothing is kept then). */
export function pinnedVersion(tenantId: string, versionId: string): Promise<VersionWithOutcome | undefined> {
  return pinned.get(tenantId, versionId, async () => {
    const version = await getAgentVersion(tenantId, versionId);
    if (!version) return undefined;
    const template = await getTemplate(version.definition.template_id, version.definition.template_version);
    return template ? { version, outcome_type: template.outcome_type } : undefined;
  });
}
