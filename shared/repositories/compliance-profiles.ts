/** Compliance profiles: one item each in the tenant's partition. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { db, tableName } from '../db/client.js';
import { agentKeys } from '../db/keys.js';
import { updateFields } from '../db/update.js';
import { isId, newId } from '../ids.js';
import { queryPage } from '../pagination/page.js';
import type { ComplianceProfile, complianceProfileCreateRequest, complianceProfileUpdateRequest } from '../schemas/compliance-profiles.js';

function presentProfile(item: Record<string, unknown>): ComplianceProfile {
  const p = item as unknown as ComplianceProfile;
  return {
    id: p.id,
    name: p.name,
    call_purpose: p.call_purpose,
    subject: p.subject,
    seller_name: p.seller_name,
    calling_window: p.calling_window ?? null,
    revision: p.revision,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

export async function createProfile(tenantId: string, input: z.output<typeof complianceProfileCreateRequest>, at: Date): Promise<ComplianceProfile> {
  const now = at.toISOString();
  const profile: ComplianceProfile = presentProfile({ ...input, id: newId('cpr'), revision: 1, created_at: now, updated_at: now });
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...agentKeys.complianceProfile(tenantId, profile.id), type: 'compliance_profile', tenant_id: tenantId, ...profile },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return profile;
}

export async function getProfile(tenantId: string, profileId: string, consistent = false): Promise<ComplianceProfile | undefined> {
  if (!isId(profileId)) return undefined; // a malformed id names nothing, like a missing one
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: agentKeys.complianceProfile(tenantId, profileId), ConsistentRead: consistent }));
  return out.Item ? presentProfile(out.Item) : undefined;
}

export async function updateProfile(
  tenantId: string,
  profileId: string,
  input: z.output<typeof complianceProfileUpdateRequest>,
  at: Date,
): Promise<ComplianceProfile | undefined> {
  if (!isId(profileId)) return undefined;
  const item = await updateFields(agentKeys.complianceProfile(tenantId, profileId), { ...input, updated_at: at.toISOString() }, { increment: 'revision' });
  return item ? presentProfile(item) : undefined;
}

export function listProfiles(tenantId: string, opts: { limit: number; cursor?: string }) {
  return queryPage({
    tenantId,
    scope: 'compliance_profiles',
    skPrefix: agentKeys.complianceProfilesPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: presentProfile,
  });
}
