/**
 * Platform templates (no tenant). The current version of each template lives in the
 * `PLATFORM#TEMPLATES` collection; every version ever seeded is also kept, immutable, in
 * the template's own partition, so an agent pinned to an old version can still read it.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { contentHashOf } from '../canonical-json.js';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { isTemplateId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import type { TemplateDefinition } from '../schemas/agent-templates.js';
import { TEMPLATE_HASHED_FIELDS, type TemplateResource } from '../schemas/agent-templates.js';

const T = () => tableName();

function presentTemplate(item: Record<string, unknown>): TemplateResource {
  const t = item as unknown as TemplateResource;
  return {
    id: t.id,
    name: t.name,
    use_case: t.use_case,
    version: t.version,
    outcome_type: t.outcome_type,
    tool_grants: t.tool_grants,
    webhook_payload_schema: t.webhook_payload_schema,
    content_hash: t.content_hash,
    status: t.status,
    objectives: t.objectives,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

const summaryOf = ({ objectives: _, ...summary }: TemplateResource) => summary;

/**
 * The template as it reads now, or the given version of it. A version other than the
 * current one is superseded: it reads as `deprecated` (it can no longer be instantiated).
 */
export async function getTemplate(templateId: string, version?: number): Promise<TemplateResource | undefined> {
  if (!isTemplateId(templateId)) return undefined;
  const current = (await db().send(new GetCommand({ TableName: T(), Key: platformKeys.template(templateId) }))).Item;
  if (!current) return undefined;
  if (version === undefined || version === current.version) return presentTemplate(current);
  if (version > (current.version as number)) return undefined;
  const old = (await db().send(new GetCommand({ TableName: T(), Key: platformKeys.templateVersion(templateId, version) }))).Item;
  return old ? { ...presentTemplate(old), status: 'deprecated' } : undefined;
}

export function listTemplates(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: 'templates',
    platformPartition: platformKeys.templatesPartition,
    skPrefix: platformKeys.templatesPrefix,
    newestFirst: false,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: (item) => summaryOf(presentTemplate(item)),
  });
}

function build(def: TemplateDefinition, version: number, createdAt: string, updatedAt: string): TemplateResource {
  const content = {
    id: def.id,
    name: def.name,
    use_case: def.use_case,
    version,
    outcome_type: def.outcome_type,
    tool_grants: def.tool_grants,
    webhook_payload_schema: def.webhook_payload_schema,
    objectives: def.objectives,
  };
  return { ...content, content_hash: contentHashOf(content, TEMPLATE_HASHED_FIELDS), status: def.status, created_at: createdAt, updated_at: updatedAt };
}

/**
 * Write one template idempotently. Unchanged content writes nothing; a changed status
 * updates the current item in place; changed content adds version N+1 (the current item
 * moves to it under a condition on N, the new version item must not exist yet), so
 * concurrent seeders cannot write two different version 2s.
 */
export async function seedTemplate(def: TemplateDefinition, now: string): Promise<'created' | 'versioned' | 'status_changed' | 'unchanged'> {
  const current = (await db().send(new GetCommand({ TableName: T(), Key: platformKeys.template(def.id), ConsistentRead: true }))).Item as
    | TemplateResource
    | undefined;
  if (!current) {
    const t = build(def, 1, now, now);
    return (await writeVersion(t, undefined)) ? 'created' : 'unchanged';
  }
  const same = build(def, current.version, current.created_at, current.updated_at);
  if (same.content_hash === current.content_hash) {
    if (same.status === current.status) return 'unchanged';
    await db().send(
      new UpdateCommand({
        TableName: T(),
        Key: platformKeys.template(def.id),
        UpdateExpression: 'SET #status = :status, updated_at = :now',
        ConditionExpression: '#version = :version',
        ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
        ExpressionAttributeValues: { ':status': def.status, ':now': now, ':version': current.version },
      }),
    );
    return 'status_changed';
  }
  const next = build(def, current.version + 1, current.created_at, now);
  return (await writeVersion(next, current.version)) ? 'versioned' : 'unchanged';
}

/** false when another seeder got there first. */
async function writeVersion(t: TemplateResource, expectedVersion: number | undefined): Promise<boolean> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: T(),
              Item: { ...platformKeys.template(t.id), type: 'template', ...t },
              ConditionExpression: expectedVersion === undefined ? 'attribute_not_exists(pk)' : '#version = :expected',
              ...(expectedVersion === undefined
                ? {}
                : { ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':expected': expectedVersion } }),
            },
          },
          {
            Put: {
              TableName: T(),
              Item: { ...platformKeys.templateVersion(t.id, t.version), type: 'template_version', ...t },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof TransactionCanceledException) return false;
    throw err;
  }
}
