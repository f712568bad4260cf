/**
 * Reps. Managed by the operator CLI, read by /v1/reps and resolved into agents'
 * direct-rep snapshots. The transfer number stays in this layer: `presentRep` and
 * `repSnapshot` are the only shapes that leave it, and neither carries the number.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { agentKeys } from '../db/keys.js';
import { updateFields } from '../db/update.js';
import { isId, newId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import type { RepSummary } from '../schemas/reps.js';

export interface RepRecord {
  id: string;
  tenant_id: string;
  name: string;
  status: 'active' | 'disabled';
  transfer_number: string | null;
  created_at: string;
  updated_at: string;
}

const presentRep = (r: RepRecord): RepSummary => ({
  id: r.id,
  name: r.name,
  status: r.status,
  transfer_enabled: Boolean(r.transfer_number),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** What an agent keeps of a rep, resolved at write time. */
export const repSnapshot = (r: RepRecord) => ({ rep_id: r.id, name: r.name, transfer_enabled: Boolean(r.transfer_number) });

export async function createRep(input: { tenantId: string; name: string; transferNumber: string | null; disabled: boolean }, at: Date): Promise<RepRecord> {
  const now = at.toISOString();
  const rep: RepRecord = {
    id: newId('rep'),
    tenant_id: input.tenantId,
    name: input.name,
    status: input.disabled ? 'disabled' : 'active',
    transfer_number: input.transferNumber,
    created_at: now,
    updated_at: now,
  };
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...agentKeys.rep(input.tenantId, rep.id), type: 'rep', ...rep },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return rep;
}

export async function setRepStatus(tenantId: string, repId: string, status: RepRecord['status'], at: Date): Promise<RepRecord | undefined> {
  if (!isId(repId)) return undefined;
  return (await updateFields(agentKeys.rep(tenantId, repId), { status, updated_at: at.toISOString() })) as RepRecord | undefined;
}

export async function getRep(tenantId: string, repId: string): Promise<RepRecord | undefined> {
  if (!isId(repId)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: agentKeys.rep(tenantId, repId), ConsistentRead: true }));
  return out.Item as RepRecord | undefined;
}

export function listReps(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: 'reps',
    skPrefix: agentKeys.repsPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    projection: ['id', 'name', 'status', 'transfer_number', 'created_at', 'updated_at'],
    map: (item) => presentRep(item as unknown as RepRecord),
  });
}
