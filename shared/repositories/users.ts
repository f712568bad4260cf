import type { Role } from '../auth/roles.js';
import { keys } from '../db/keys.js';
import { collections } from '../db/keys.js';
import { queryPage, type Page } from '../pagination/page.js';

export interface User {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  status: 'active' | 'deactivated';
  created_at: string;
  updated_at: string;
}

export const userItem = (tenantId: string, u: User) => ({ ...keys.user(tenantId, u.id), type: 'user', tenant_id: tenantId, ...u });
/** Guard item that makes an email unique within a tenant (written in the same transaction). */
export const userEmailGuard = (tenantId: string, u: User) => ({ ...keys.userEmail(tenantId, u.email), type: 'user_email', user_id: u.id });

const toUser = (item: Record<string, unknown>): User => {
  const { id, email, name, role, status, created_at, updated_at } = item as unknown as User;
  return { id, email, name: name ?? null, role, status, created_at, updated_at };
};

export function listUsers(tenantId: string, opts: { limit: number; cursor?: string }): Promise<Page<User>> {
  return queryPage({
    tenantId,
    scope: 'users',
    skPrefix: collections.users,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: toUser,
  });
}
