/**
 * Key builders: the only place key strings are made. Every tenant-reachable key starts
 * with the tenant's partition, and the tenant id always comes from the authenticated
 * principal, never from input. Ids we mint never contain '#'.
 */
const assertId = (id: string): string => {
  if (!id || id.includes('#')) throw new Error('invalid id for a key');
  return id;
};

export const tenantPk = (tenantId: string) => `TENANT#${assertId(tenantId)}`;

export const keys = {
  tenant: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'TENANT' }),
  user: (tenantId: string, userId: string) => ({ pk: tenantPk(tenantId), sk: `USER#${assertId(userId)}` }),
  userEmail: (tenantId: string, email: string) => ({ pk: tenantPk(tenantId), sk: `USER_EMAIL#${email.toLowerCase()}` }),
  apiKey: (tenantId: string, keyId: string) => ({ pk: tenantPk(tenantId), sk: `APIKEY#${assertId(keyId)}` }),
  idempotency: (tenantId: string, routeId: string, key: string) => ({
    pk: tenantPk(tenantId),
    sk: `IDEMPOTENCY#${routeId}#${key}`,
  }),
} as const;

/** Sort-key prefixes for collection reads. */
export const collections = {
  users: 'USER#',
  apiKeys: 'APIKEY#',
} as const;
