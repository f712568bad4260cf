/** Roles, strongest first. A credential may never mint or rotate into more than it holds. */
export const ROLES = ['admin', 'manager', 'member'] as const;
export type Role = (typeof ROLES)[number];

const rank: Record<Role, number> = { admin: 3, manager: 2, member: 1 };

export const roleCovers = (holder: Role, wanted: Role): boolean => rank[holder] >= rank[wanted];
