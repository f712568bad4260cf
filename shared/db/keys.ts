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
  contacts: 'CONTACT#',
  imports: 'IMPORT#',
} as const;

export const contactKeys = {
  contact: (tenantId: string, contactId: string) => ({ pk: tenantPk(tenantId), sk: `CONTACT#${assertId(contactId)}` }),
  /** Guard item: makes a phone number unique within the tenant. */
  phone: (tenantId: string, phoneE164: string) => ({ pk: tenantPk(tenantId), sk: `CONTACT_PHONE#${phoneE164}` }),
  consent: (tenantId: string, contactId: string, consentId: string) => ({
    pk: tenantPk(tenantId),
    sk: `CONSENT#${assertId(contactId)}#${assertId(consentId)}`,
  }),
  consentsOf: (contactId: string) => `CONSENT#${assertId(contactId)}#`,
  attestation: (tenantId: string, attestationId: string) => ({ pk: tenantPk(tenantId), sk: `ATTESTATION#${assertId(attestationId)}` }),
  /** Pointer to the tenant's standing API-source attestation. */
  apiAttestation: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'ATTESTATION_API_SOURCE' }),
  list: (tenantId: string, listId: string) => ({ pk: tenantPk(tenantId), sk: `LIST#${assertId(listId)}` }),
  listName: (tenantId: string, name: string) => ({ pk: tenantPk(tenantId), sk: `LIST_NAME#${name.trim().toLowerCase()}` }),
  listMember: (tenantId: string, listId: string, contactId: string) => ({
    pk: tenantPk(tenantId),
    sk: `LIST_MEMBER#${assertId(listId)}#${assertId(contactId)}`,
  }),
  importJob: (tenantId: string, importId: string) => ({ pk: tenantPk(tenantId), sk: `IMPORT#${assertId(importId)}` }),
} as const;
