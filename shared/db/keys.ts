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
  telephonyAccount: (tenantId: string, accountId: string) => ({ pk: tenantPk(tenantId), sk: `TELACCT#${assertId(accountId)}` }),
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
  telephonyAccounts: 'TELACCT#',
} as const;

/** Platform-owned records (no tenant can reach them): the sandbox carrier's own accounts. */
export const platformKeys = {
  sandboxAccount: (accountSid: string) => ({ pk: 'PLATFORM#SANDBOX', sk: `ACCOUNT#${assertId(accountSid)}` }),
  /** The sandbox account that plays the platform's own (managed) carrier account locally. */
  sandboxPlatformAccount: { pk: 'PLATFORM#SANDBOX', sk: 'PLATFORM_ACCOUNT' },
} as const;

/**
 * Contacts are the high-volume entity (a CSV import writes thousands a second), so each
 * contact gets a partition of its own (`TENANT#<t>#CONTACT#<con>`, holding the contact,
 * its consents and its list memberships) and each phone guard too. A tenant's writes
 * then spread over many partitions instead of queueing on one (DynamoDB serves about
 * 1,000 WCU/s per partition key). Collections are read through gsi1, whose partition
 * keys also start with the tenant: `TENANT#<t>#CONTACTS`, `TENANT#<t>#LIST#<lst>#MEMBERS`.
 */
export const contactPartition = (tenantId: string, contactId: string) => `${tenantPk(tenantId)}#CONTACT#${assertId(contactId)}`;

export const contactKeys = {
  contact: (tenantId: string, contactId: string) => ({ pk: contactPartition(tenantId, contactId), sk: 'CONTACT' }),
  /** gsi1 attributes that put a contact in the tenant's newest-first collection. */
  contactIndex: (tenantId: string, contactId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#CONTACTS`, gsi1sk: `CONTACT#${assertId(contactId)}` }),
  contactsIndexPartition: (tenantId: string) => `${tenantPk(tenantId)}#CONTACTS`,
  /** Guard item: makes a phone number unique within the tenant. */
  phone: (tenantId: string, phoneE164: string) => ({ pk: `${tenantPk(tenantId)}#PHONE#${assertId(phoneE164)}`, sk: 'PHONE' }),
  consent: (tenantId: string, contactId: string, consentId: string) => ({
    pk: contactPartition(tenantId, contactId),
    sk: `CONSENT#${assertId(consentId)}`,
  }),
  consentsPrefix: 'CONSENT#',
  attestation: (tenantId: string, attestationId: string) => ({ pk: tenantPk(tenantId), sk: `ATTESTATION#${assertId(attestationId)}` }),
  /** Pointer to the tenant's standing API-source attestation. */
  apiAttestation: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'ATTESTATION_API_SOURCE' }),
  list: (tenantId: string, listId: string) => ({ pk: tenantPk(tenantId), sk: `LIST#${assertId(listId)}` }),
  listName: (tenantId: string, name: string) => ({ pk: tenantPk(tenantId), sk: `LIST_NAME#${name.trim().toLowerCase()}` }),
  /** Membership lives in the contact's partition; gsi1 gathers a list's members. */
  listMember: (tenantId: string, listId: string, contactId: string) => ({
    pk: contactPartition(tenantId, contactId),
    sk: `LIST#${assertId(listId)}`,
    gsi1pk: `${tenantPk(tenantId)}#LIST#${assertId(listId)}#MEMBERS`,
    gsi1sk: `CONTACT#${assertId(contactId)}`,
  }),
  listMembersIndexPartition: (tenantId: string, listId: string) => `${tenantPk(tenantId)}#LIST#${assertId(listId)}#MEMBERS`,
  importJob: (tenantId: string, importId: string) => ({ pk: tenantPk(tenantId), sk: `IMPORT#${assertId(importId)}` }),
} as const;

/** True when a partition (table or index) value belongs to the tenant. */
export const belongsToTenant = (partition: string, tenantId: string): boolean =>
  partition === tenantPk(tenantId) || partition.startsWith(`${tenantPk(tenantId)}#`);
