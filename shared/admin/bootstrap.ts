/**
 * Operator actions behind bin/admin.ts: create a tenant with its first admin user and
 * key, add users, mint keys, manage reps, seed platform data. Each is one transaction, so a failure leaves nothing behind.
 */

import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { mintApiKey } from '../auth/api-keys.js';
import { now as clockNow } from '../clock.js';
import { putNew as put, transactWrite } from '../db/transact-write.js';
import { newId } from '../ids.js';
import type { Role } from '../policy/auth/roles.js';
import { apiKeyItem } from '../repositories/api-keys.js';
import { newBillingAccountItems } from '../repositories/billing.js';
import { createRep, setRepStatus } from '../repositories/reps.js';
import { getTenant, type Tenant, tenantItem } from '../repositories/tenants.js';
import { type User, userEmailGuard, userItem } from '../repositories/users.js';

export class OperatorError extends Error {}

function newUser(email: string, role: Role, name: string | null, now: string): User {
  return { id: newId('usr'), email: email.toLowerCase(), name, role, status: 'active', created_at: now, updated_at: now };
}

export async function createTenant(input: { name: string; adminEmail: string; adminName?: string }) {
  // The platform clock (real time in production): a tenant's creation starts its billing trial.
  const now = clockNow().toISOString();
  const tenant: Tenant = { id: newId('ten'), name: input.name, status: 'active', created_at: now };
  const user = newUser(input.adminEmail, 'admin', input.adminName ?? null, now);
  const key = await mintApiKey({ tenantId: tenant.id, name: 'Bootstrap admin key', role: 'admin', createdBy: { type: 'operator', id: null }, now });
  await transactWrite([
    put(tenantItem(tenant)),
    put(userItem(tenant.id, user)),
    put(userEmailGuard(tenant.id, user)),
    put(apiKeyItem(key.record)),
    ...newBillingAccountItems(tenant.id, now),
  ]);
  return { tenant_id: tenant.id, user_id: user.id, api_key: { id: key.record.id, secret: key.token } };
}

async function requireTenant(tenantId: string): Promise<void> {
  if (!(await getTenant(tenantId))) throw new OperatorError(`tenant ${tenantId} does not exist`);
}

export async function createUser(input: { tenantId: string; email: string; role: Role; name?: string }) {
  await requireTenant(input.tenantId);
  const user = newUser(input.email, input.role, input.name ?? null, new Date().toISOString());
  try {
    await transactWrite([put(userItem(input.tenantId, user)), put(userEmailGuard(input.tenantId, user))]);
  } catch (err) {
    if (err instanceof TransactionCanceledException) throw new OperatorError(`a user with email ${user.email} already exists in this tenant`);
    throw err;
  }
  return { tenant_id: input.tenantId, user_id: user.id, email: user.email, role: user.role };
}

export async function createApiKey(input: { tenantId: string; name: string; role: Role }) {
  await requireTenant(input.tenantId);
  const key = await mintApiKey({ tenantId: input.tenantId, name: input.name, role: input.role, createdBy: { type: 'operator', id: null } });
  await transactWrite([put(apiKeyItem(key.record))]);
  return { tenant_id: input.tenantId, api_key: { id: key.record.id, role: key.record.role, secret: key.token } };
}

/** Reps are managed here, outside /v1, like users. Prints only the id: never the number. */
export async function createRepAction(input: { tenantId: string; name: string; transferNumber: string | null; disabled: boolean }) {
  await requireTenant(input.tenantId);
  const rep = await createRep(input, clockNow());
  return { rep_id: rep.id };
}

export async function setRepStatusAction(input: { tenantId: string; repId: string; status: 'active' | 'disabled' }) {
  await requireTenant(input.tenantId);
  const rep = await setRepStatus(input.tenantId, input.repId, input.status, clockNow());
  if (!rep) throw new OperatorError(`rep ${input.repId} does not exist in tenant ${input.tenantId}`);
  return { rep_id: rep.id, status: rep.status };
}
