/**
 * Agents (editable drafts) and their immutable published versions.
 *
 * Publishing is one transaction: the agent's `version_count` moves from the value read to
 * N+1 (a condition on the value read), the version item N+1 is put only if absent, and a
 * pointer `agv_… → (agent, N)` is put. Two concurrent publishes cannot both take N; the
 * loser re-reads and tries N+1, so versions are 1, 2, 3 … with no gap and no duplicate.
 */
import { GetCommand, PutCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { contentHash } from '../canonical-json.js';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction, noChange } from '../db/conditional-transaction.js';
import { agentKeys, agentPartition } from '../db/keys.js';
import { collectionHead } from '../db/query.js';
import { updateFields } from '../db/update.js';
import { isId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import type { Objective } from '../policy/rubric.js';
import { buildRubric } from '../policy/rubric.js';
import type { RetryPolicy } from '../retry.js';
import type { AgentDefinition, AgentVersion } from '../schemas/agents.js';
import type { ComplianceProfile } from '../schemas/compliance-profiles.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
const T = () => tableName();

/** Stored form: the definition plus how many versions were published. */
export type AgentRecord = Omit<AgentDefinition, 'latest_version'> & { tenant_id: string; version_count: number };

export function presentAgent(a: AgentRecord): AgentDefinition {
  return {
    id: a.id,
    template_id: a.template_id,
    template_version: a.template_version,
    name: a.name,
    use_case: a.use_case,
    status: a.status,
    disclosure_config: a.disclosure_config,
    persona: a.persona,
    conversation_settings: a.conversation_settings,
    llm_route: a.llm_route ?? null,
    stock_voice_id: a.stock_voice_id ?? null,
    voice_profile_id: a.voice_profile_id ?? null,
    knowledge_pack_id: a.knowledge_pack_id ?? null,
    knowledge_pack_version: a.knowledge_pack_version ?? null,
    compliance_profile_id: a.compliance_profile_id ?? null,
    tools: a.tools,
    dialogue_policy: a.dialogue_policy,
    conversation_controls: a.conversation_controls,
    direct_reps: a.direct_reps,
    voicemail_drop: a.voicemail_drop ?? null,
    latest_version: a.version_count > 0 ? a.version_count : null,
    latest_version_id: a.latest_version_id ?? null,
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
}

export async function createAgent(a: AgentRecord): Promise<void> {
  await db().send(
    new PutCommand({ TableName: T(), Item: { ...agentKeys.agent(a.tenant_id, a.id), type: 'agent', ...a }, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}

export async function getAgentRecord(tenantId: string, agentId: string, consistent = false): Promise<AgentRecord | undefined> {
  if (!isId(agentId)) return undefined; // a malformed id names nothing, like a missing one
  const out = await db().send(new GetCommand({ TableName: T(), Key: agentKeys.agent(tenantId, agentId), ConsistentRead: consistent }));
  return out.Item as AgentRecord | undefined;
}

/** Sets the given draft fields; never touches status, versions or published versions. */
export async function updateAgent(tenantId: string, agentId: string, fields: Partial<AgentDefinition>, at: Date): Promise<AgentRecord | undefined> {
  if (!isId(agentId)) return undefined;
  return (await updateFields(agentKeys.agent(tenantId, agentId), { ...fields, updated_at: at.toISOString() })) as AgentRecord | undefined;
}

export function listAgents(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: 'agents',
    skPrefix: agentKeys.agentsPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: (item) => presentAgent(item as unknown as AgentRecord),
  });
}

const presentVersion = (item: Record<string, unknown>): AgentVersion => {
  const v = item as unknown as AgentVersion;
  return {
    id: v.id,
    agent_id: v.agent_id,
    version: v.version,
    content_hash: v.content_hash,
    definition: v.definition,
    objectives: v.objectives,
    rubric: v.rubric,
    compliance_profile: v.compliance_profile,
    published_at: v.published_at,
  };
};

export function listAgentVersions(tenantId: string, agentId: string, opts: { limit: number; cursor?: string }) {
  return queryPage({
    tenantId,
    scope: `agent_versions:${agentId}`,
    partition: agentPartition(tenantId, agentId),
    skPrefix: agentKeys.versionsPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: presentVersion,
  });
}

export async function getAgentVersion(tenantId: string, versionId: string): Promise<AgentVersion | undefined> {
  if (!isId(versionId)) return undefined;
  const pointer = (await db().send(new GetCommand({ TableName: T(), Key: agentKeys.versionPointer(tenantId, versionId) }))).Item;
  if (!pointer) return undefined;
  const out = await db().send(new GetCommand({ TableName: T(), Key: agentKeys.version(tenantId, pointer.agent_id as string, pointer.version as number) }));
  return out.Item ? presentVersion(out.Item) : undefined;
}

/** A version item as published, without its storage keys. */
const storedVersion = (item: Record<string, unknown>): AgentVersion => {
  const { pk: _pk, sk: _sk, type: _type, tenant_id: _tenant, ...version } = item;
  return version as unknown as AgentVersion;
};

/** The agent's latest published version (strongly consistent Query, newest first, Limit 1), or undefined when it has none (or no such agent). */
export async function latestPublishedVersion(tenantId: string, agentId: string): Promise<AgentVersion | undefined> {
  if (!isId(agentId)) return undefined;
  const items = await collectionHead(
    { pk: agentPartition(tenantId, agentId), prefix: agentKeys.versionsPrefix },
    { ScanIndexForward: false, Limit: 1, ConsistentRead: true },
  );
  const item = items[0];
  return item ? storedVersion(item) : undefined;
}

/** Whether the agent exists at all (only asked when it has no published version: 409 vs 422). */
export async function agentExists(tenantId: string, agentId: string): Promise<boolean> {
  if (!isId(agentId)) return false;
  const out = await db().send(new GetCommand({ TableName: T(), Key: agentKeys.agent(tenantId, agentId), ConsistentRead: true, ProjectionExpression: 'pk' }));
  return out.Item !== undefined;
}

export class ComplianceProfileRequired extends Error {}

/** The draft says nothing the latest version does not: publishing it would only renumber the same content. */
export class NoChanges extends Error {
  constructor(readonly latest: Pick<AgentVersion, 'id' | 'version'>) {
    super(`unchanged since version ${latest.version}`);
  }
}

// The agent's bookkeeping, not its content: a publish changes these by itself.
const BOOKKEEPING = new Set(['status', 'latest_version', 'latest_version_id', 'created_at', 'updated_at']);

/**
 * A version's content_hash: canonical JSON (shared/canonical-json.ts) of its content only —
 * the definition without the agent's bookkeeping, and the frozen compliance profile. The
 * same content always gives the same hash, whatever its number, id or instant.
 */
function versionContentHash(v: Pick<AgentVersion, 'definition' | 'compliance_profile'>): string {
  const definition = Object.fromEntries(Object.entries(v.definition).filter(([k]) => !BOOKKEEPING.has(k)));
  return contentHash({ definition, compliance_profile: v.compliance_profile });
}

export interface PublishInputs {
  /** The profile the agent names, read now: frozen into the version. */
  profile: (agent: AgentRecord) => Promise<ComplianceProfile | undefined>;
  /** The objectives of the template version the agent was made from. */
  objectives: (agent: AgentRecord) => Promise<Objective[]>;
  newVersionId: () => string;
  /** The instant published: the version's published_at and the draft's updated_at. */
  at: Date;
  /** Extra items committed with the version (the idempotent result). */
  extra?: (version: AgentVersion) => TransactItem[];
}

/** Publishes of one agent all race for version N+1: many short tries rather than a few long waits. */
const PUBLISH_RACE: RetryPolicy = { baseMs: 10, capMs: 250, attempts: 40 };

/** Publish the draft as version N+1. undefined: no such agent. */
export async function publishAgent(tenantId: string, agentId: string, inputs: PublishInputs): Promise<AgentVersion | undefined> {
  return conditionalTransaction<AgentVersion | undefined>({
    decide: async () => {
      const agent = await getAgentRecord(tenantId, agentId, true);
      if (!agent) return noChange(undefined);
      if (!agent.compliance_profile_id) throw new ComplianceProfileRequired();
      const profile = await inputs.profile(agent);
      if (!profile) throw new ComplianceProfileRequired();
      const version = freeze(agent, profile, await inputs.objectives(agent), inputs.newVersionId(), inputs.at);
      // Recomputed from the stored latest version, so versions hashed before this rule compare too.
      const latest = agent.latest_version_id ? await getAgentVersion(tenantId, agent.latest_version_id) : undefined;
      if (latest && versionContentHash(latest) === version.content_hash) throw new NoChanges(latest);
      return commit([...publishItems(tenantId, agent, version), ...(inputs.extra?.(version) ?? [])], version);
    },
    policy: PUBLISH_RACE,
  });
}

function freeze(agent: AgentRecord, profile: ComplianceProfile, objectives: Objective[], id: string, at: Date): AgentVersion {
  const now = at.toISOString();
  const n = agent.version_count + 1;
  const definition = presentAgent({ ...agent, status: 'published', version_count: n, latest_version_id: id, updated_at: now });
  return {
    id,
    agent_id: agent.id,
    version: n,
    content_hash: versionContentHash({ definition, compliance_profile: profile }),
    definition,
    objectives,
    rubric: buildRubric(id, objectives),
    compliance_profile: profile,
    published_at: now,
  };
}

function publishItems(tenantId: string, agent: AgentRecord, v: AgentVersion): TransactItem[] {
  return [
    {
      Update: {
        TableName: T(),
        Key: agentKeys.agent(tenantId, agent.id),
        UpdateExpression: 'SET #status = :published, version_count = :n, latest_version_id = :id, updated_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND version_count = :expected',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':published': 'published', ':n': v.version, ':id': v.id, ':now': v.published_at, ':expected': agent.version_count },
      },
    },
    {
      Put: {
        TableName: T(),
        Item: { ...agentKeys.version(tenantId, agent.id, v.version), type: 'agent_version', tenant_id: tenantId, ...v },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: T(),
        Item: { ...agentKeys.versionPointer(tenantId, v.id), type: 'agent_version_pointer', agent_id: agent.id, version: v.version },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}
