/**
 * Key builders: the only place key strings are made. Every tenant-reachable key starts
 * with the tenant's partition, and the tenant id always comes from the authenticated
 * principal, never from input. Ids we mint never contain '#'.
 */
import { createHash } from 'node:crypto';

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
  phoneNumber: (tenantId: string, numberId: string) => ({ pk: tenantPk(tenantId), sk: `NUMBER#${assertId(numberId)}` }),
  /** Outside the NUMBER# collection, so a Query of the numbers never meets it. */
  numbersVersion: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'NUMBERS_VERSION' }),
  idempotency: (tenantId: string, routeId: string, key: string) => ({
    pk: tenantPk(tenantId),
    sk: `IDEMPOTENCY#${routeId}#${key}`,
  }),
  /**
   * Dashboard sign-in (see docs/decisions/auth-and-sessions.md): a user's current one-use emailed sign-in link, the account's
   * deletion request and its current one-use emailed proof (sessions are platform keys: the
   * cookie names no tenant). Tokens and cookies are never stored, only their hashes.
   */
  signInLink: (tenantId: string, userId: string) => ({ pk: tenantPk(tenantId), sk: `SIGNIN_LINK#${assertId(userId)}` }),
  deletionRequest: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'DELETION_REQUEST' }),
  deletionProof: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'DELETION_PROOF' }),
  /** A deleted tenant's suppression-list number, kept only as a keyed hash (shared/accounts/retention.ts). */
  suppressionHash: (tenantId: string, numberHash: string) => ({ pk: tenantPk(tenantId), sk: `SUPPRESSION_HASH#${assertId(numberHash)}` }),
} as const;

/** Sort-key prefixes for collection reads. */
export const collections = {
  users: 'USER#',
  invoices: 'INVOICE#',
  campaigns: 'CAMPAIGN#',
  apiKeys: 'APIKEY#',
  contacts: 'CONTACT#',
  imports: 'IMPORT#',
  telephonyAccounts: 'TELACCT#',
  phoneNumbers: 'NUMBER#',
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
  /**
   * A contact attempt (a queued call to the contact) lives in the contact's partition, so
   * the compliance engine's "recent attempts" and the contact with its consents are one
   * Query: `ATTEMPT#…` < `CONSENT#…` < `CONTACT` sort together (contactHistoryRange).
   */
  attempt: (tenantId: string, contactId: string, attemptId: string) => ({ pk: contactPartition(tenantId, contactId), sk: `ATTEMPT#${assertId(attemptId)}` }),
  attemptsPrefix: 'ATTEMPT#',
  /** The sort-key range holding a contact's attempts, consents and the contact item (and nothing else). */
  contactHistoryRange: { from: 'ATTEMPT#', to: 'CONTACT' },
  /**
   * The attempts placed on one UTC day (`YYYY-MM-DD`), in the contact's partition beside them
   * (after `CONTACT`, outside the history range): the 24 h before any instant lie in two such
   * items, so the frequency cap's input is read by key.
   */
  placements: (tenantId: string, contactId: string, day: string) => ({ pk: contactPartition(tenantId, contactId), sk: `PLACED#${assertId(day)}` }),
} as const;

/**
 * The tenant's suppression list (internal do-not-call), one partition per number, like the
 * phone guard: `ACTIVE` exists exactly while the number is suppressed (so "is it
 * suppressed?" is one GetItem) and names the active entry; every entry ever made stays as
 * `ENTRY#<sup>` (history; lifted entries are kept). gsi1 gathers the entries newest first.
 */
const suppressionPartition = (tenantId: string, phoneE164: string) => `${tenantPk(tenantId)}#SUPPRESSION#${assertId(phoneE164)}`;

export const suppressionKeys = {
  active: (tenantId: string, phoneE164: string) => ({ pk: suppressionPartition(tenantId, phoneE164), sk: 'ACTIVE' }),
  entry: (tenantId: string, phoneE164: string, suppressionId: string) => ({
    pk: suppressionPartition(tenantId, phoneE164),
    sk: `ENTRY#${assertId(suppressionId)}`,
  }),
  entryIndex: (tenantId: string, suppressionId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#SUPPRESSIONS`, gsi1sk: `SUPPRESSION#${assertId(suppressionId)}` }),
  entriesIndexPartition: (tenantId: string) => `${tenantPk(tenantId)}#SUPPRESSIONS`,
  entriesIndexPrefix: 'SUPPRESSION#',
} as const;

/** Zero-padded so versions sort numerically as strings. */
const versionSk = (version: number) => {
  if (!Number.isSafeInteger(version) || version < 1) throw new Error('invalid version for a key');
  return `VERSION#${String(version).padStart(10, '0')}`;
};

/**
 * Agents, their published versions, compliance profiles and reps: low-volume, in the
 * tenant's partition, except an agent's versions, which get a partition per agent so the
 * version list is one strongly consistent range read in version order.
 */
export const agentPartition = (tenantId: string, agentId: string) => `${tenantPk(tenantId)}#AGENT#${assertId(agentId)}`;

export const agentKeys = {
  agent: (tenantId: string, agentId: string) => ({ pk: tenantPk(tenantId), sk: `AGENT#${assertId(agentId)}` }),
  agentsPrefix: 'AGENT#',
  /** The immutable version item; `attribute_not_exists(pk)` on it forbids a duplicate number. */
  version: (tenantId: string, agentId: string, version: number) => ({ pk: agentPartition(tenantId, agentId), sk: versionSk(version) }),
  versionsPrefix: 'VERSION#',
  /** Finds a version by its id (`agv_…`): names the agent and the number. */
  versionPointer: (tenantId: string, versionId: string) => ({ pk: tenantPk(tenantId), sk: `AGENT_VERSION#${assertId(versionId)}` }),
  complianceProfile: (tenantId: string, profileId: string) => ({ pk: tenantPk(tenantId), sk: `COMPLIANCE_PROFILE#${assertId(profileId)}` }),
  complianceProfilesPrefix: 'COMPLIANCE_PROFILE#',
  rep: (tenantId: string, repId: string) => ({ pk: tenantPk(tenantId), sk: `REP#${assertId(repId)}` }),
  repsPrefix: 'REP#',
} as const;

/**
 * Answering policies: every version of a number's policy, immutable, in a partition per
 * number (`TENANT#<t>#NUMBER#<pnb>`); the number item names the version in force.
 */
export const answeringPolicyKeys = {
  version: (tenantId: string, numberId: string, version: number) => ({
    pk: `${tenantPk(tenantId)}#NUMBER#${assertId(numberId)}`,
    sk: `POLICY#${versionSk(version)}`,
  }),
} as const;

/**
 * Calls are high-volume like contacts: a partition each (`TENANT#<t>#CALL#<cal>`), gathered
 * newest first in gsi1 `TENANT#<t>#CALLS`.
 */
export const callPartition = (tenantId: string, callId: string) => `${tenantPk(tenantId)}#CALL#${assertId(callId)}`;
export const callKeys = {
  call: (tenantId: string, callId: string) => ({ pk: callPartition(tenantId, callId), sk: 'CALL' }),
  /** One voice-runtime event of the call, by the runtime's event id (its idempotency key; the id's characters exclude '#'). */
  event: (tenantId: string, callId: string, eventId: string) => ({ pk: callPartition(tenantId, callId), sk: `EVENT#${eventId}` }),
  callIndex: (tenantId: string, callId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#CALLS`, gsi1sk: `CALL#${assertId(callId)}` }),
  callsIndexPartition: (tenantId: string) => `${tenantPk(tenantId)}#CALLS`,
} as const;

/**
 * Text messages (see docs/decisions/messaging.md) are high-volume like calls: a partition each
 * (`TENANT#<t>#MESSAGE#<msg>`), gathered newest first in gsi1 `TENANT#<t>#MESSAGES`. A voice
 * runtime `send_sms` action leaves a guard in its call's partition (`SMS_ACTION#<action_id>`,
 * put if absent with the message), so a resent batch never sends twice.
 */
const messagePartition = (tenantId: string, messageId: string) => `${tenantPk(tenantId)}#MESSAGE#${assertId(messageId)}`;
export const messageKeys = {
  message: (tenantId: string, messageId: string) => ({ pk: messagePartition(tenantId, messageId), sk: 'MESSAGE' }),
  messageIndex: (tenantId: string, messageId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#MESSAGES`, gsi1sk: `MESSAGE#${assertId(messageId)}` }),
  messagesIndexPartition: (tenantId: string) => `${tenantPk(tenantId)}#MESSAGES`,
  messagesIndexPrefix: 'MESSAGE#',
  callAction: (tenantId: string, callId: string, actionId: string) => ({ pk: callPartition(tenantId, callId), sk: `SMS_ACTION#${assertId(actionId)}` }),
  /**
   * Sending watches, `PLATFORM#MSGSEND#<shard>` / `<since ISO>#<tenant>#<msg>`: an outbound
   * message committed `queued` whose carrier SID is not yet recorded (put with the message,
   * deleted when the SID is linked or the message settles); the scheduler fails old ones as
   * send_unknown (shared/messages/send-reconciler.ts). Sharded like the dispatch watches.
   */
  sendWatchPartition: (shard: number) => `${PLATFORM_PREFIX}MSGSEND#${shard}`,
  sendWatch: (since: string, tenantId: string, messageId: string) => ({
    pk: `${PLATFORM_PREFIX}MSGSEND#${dispatchShard(assertId(messageId))}`,
    sk: `${since}#${assertId(tenantId)}#${messageId}`,
  }),
} as const;

/**
 * Platform-owned records (no tenant): partitions start with `PLATFORM#`, which no tenant
 * key can (tenant partitions start with `TENANT#`). Every tenant may read templates.
 */
const PLATFORM_PREFIX = 'PLATFORM#';
export const platformKeys = {
  /**
   * Dashboard sign-in by email (see docs/decisions/auth-and-sessions.md): which tenant user an email signs in as, keyed by a
   * hash of the lower-cased email (no address in a key). Written when a user gets a password
   * or a verified email; the account deletion removes it (it carries tenant_id).
   */
  loginEmail: (emailHash: string) => ({ pk: `${PLATFORM_PREFIX}LOGIN#${assertId(emailHash)}`, sk: 'LOGIN' }),
  /**
   * A dashboard session (see docs/decisions/auth-and-sessions.md), keyed by SHA-256 of the cookie's secret: the cookie holds
   * only that opaque secret, no tenant or user id. The item carries tenant_id (the account
   * deletion's sweep removes it) and sits in gsi1 `TENANT#<t>#SESSIONS` / `USER#<usr>#<hash>`,
   * so a tenant's or a user's sessions can be listed and revoked.
   */
  session: (secretHash: string) => ({ pk: `${PLATFORM_PREFIX}SESSION#${assertId(secretHash)}`, sk: 'SESSION' }),
  sessionIndex: (tenantId: string, userId: string, secretHash: string) => ({
    gsi1pk: `${tenantPk(tenantId)}#SESSIONS`,
    gsi1sk: `USER#${assertId(userId)}#${assertId(secretHash)}`,
  }),
  sessionsIndexPartition: (tenantId: string) => `${tenantPk(tenantId)}#SESSIONS`,
  /** Where an email-link request for an email that cannot sign in writes its decoy (the same Put as a real link: timing parity). */
  signInLinkDecoy: { pk: `${PLATFORM_PREFIX}SIGNIN_LINK_DECOY`, sk: 'DECOY' },
  /** A sign-in throttle counter: one item per scope, subject hash and window (TTL'd). */
  throttle: (scope: string, subjectHash: string, windowStart: number) => ({
    pk: `${PLATFORM_PREFIX}THROTTLE#${assertId(scope)}#${assertId(subjectHash)}`,
    sk: `WINDOW#${windowStart}`,
  }),
  /** A password throttle's progressive-delay counter: one item per scope and subject hash (TTL'd once forgotten). */
  throttleBackoff: (scope: string, subjectHash: string) => ({ pk: `${PLATFORM_PREFIX}THROTTLE#${assertId(scope)}#${assertId(subjectHash)}`, sk: 'BACKOFF' }),
  /** Account deletions waiting for their instant: `<scheduled_for ISO>#<tenant>` (the job reads sk ≤ now). */
  deletionsDuePartition: `${PLATFORM_PREFIX}DELETIONS_DUE`,
  deletionDue: (scheduledFor: string, tenantId: string) => ({ pk: `${PLATFORM_PREFIX}DELETIONS_DUE`, sk: `${scheduledFor}#${assertId(tenantId)}` }),
  /** The local mail sink (MAIL_TRANSPORT=sink): a recipient's mails, newest last (TTL'd; never on AWS). */
  mailSink: (recipientHash: string) => `${PLATFORM_PREFIX}MAILSINK#${assertId(recipientHash)}`,
  /** The current version of each template: the collection `GET /v1/templates` pages. */
  templatesPartition: `${PLATFORM_PREFIX}TEMPLATES`,
  template: (templateId: string) => ({ pk: `${PLATFORM_PREFIX}TEMPLATES`, sk: `TEMPLATE#${assertId(templateId)}` }),
  templatesPrefix: 'TEMPLATE#',
  /** Every version of a template, immutable, kept readable after a newer one is seeded. */
  templateVersion: (templateId: string, version: number) => ({ pk: `${PLATFORM_PREFIX}TEMPLATE#${assertId(templateId)}`, sk: versionSk(version) }),
  /** The sandbox carrier's own accounts (it keeps their auth tokens, sealed, as Twilio does). */
  sandboxAccount: (accountSid: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX`, sk: `ACCOUNT#${assertId(accountSid)}` }),
  /** A sandbox carrier number by its E.164 (unique across the sandbox, as in the world) … */
  sandboxNumber: (e164: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX`, sk: `NUMBER#${assertId(e164)}` }),
  /** … and by its SID (PN…), pointing at the E.164. */
  sandboxNumberSid: (sid: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX`, sk: `NUMBER_SID#${assertId(sid)}` }),
  /**
   * The sandbox carrier's calls (CA…) and messages (SM…): a partition each, so a burst of
   * calls spreads over partitions; gsi1 lists an account's calls, oldest first.
   */
  sandboxCall: (callSid: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX#CALL#${assertId(callSid)}`, sk: 'CALL' }),
  sandboxCallIndex: (accountSid: string, createdAt: string, callSid: string) => ({
    gsi1pk: `${PLATFORM_PREFIX}SANDBOX#ACCOUNT#${assertId(accountSid)}#CALLS`,
    gsi1sk: `CALL#${createdAt}#${assertId(callSid)}`,
  }),
  sandboxMessage: (messageSid: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX#MESSAGE#${assertId(messageSid)}`, sk: 'MESSAGE' }),
  /**
   * One number belongs to at most one tenant on the whole platform: this claim names the
   * tenant, number and account, and is how a carrier callback's `To` finds its tenant.
   */
  numberClaim: (e164: string) => ({ pk: `${PLATFORM_PREFIX}NUMBER#${assertId(e164)}`, sk: 'CLAIM' }),
  /** A carrier's call id (Twilio CallSid) → the tenant's call: how status callbacks find it. */
  carrierCall: (callSid: string) => ({ pk: `${PLATFORM_PREFIX}CARRIER_CALL#${assertId(callSid)}`, sk: 'CALL' }),
  /** A carrier's message id (Twilio MessageSid) → the tenant's message: an inbound webhook replayed finds what it stored. */
  carrierMessage: (messageSid: string) => ({ pk: `${PLATFORM_PREFIX}CARRIER_MESSAGE#${assertId(messageSid)}`, sk: 'MESSAGE' }),
  /**
   * The tenant accounts that use a carrier account SID (a hint for callbacks to numbers no
   * tenant holds; the signature is still checked with each account's current token).
   */
  carrierAccountPartition: (accountSid: string) => `${PLATFORM_PREFIX}CARRIER_ACCOUNT#${assertId(accountSid)}`,
  carrierAccountUse: (accountSid: string, tenantId: string, accountId: string) => ({
    pk: `${PLATFORM_PREFIX}CARRIER_ACCOUNT#${assertId(accountSid)}`,
    sk: `${tenantPk(tenantId)}#TELACCT#${assertId(accountId)}`,
  }),
  /** National DNC: the pointer naming an area code's live snapshot generation (one item per area code). */
  dncPartition: `${PLATFORM_PREFIX}DNC`,
  dncPointer: (areaCode: string) => ({ pk: `${PLATFORM_PREFIX}DNC`, sk: `AREA#${assertId(areaCode)}` }),
  dncPointersPrefix: 'AREA#',
  /** A generation's manifest (its exchanges), written before its chunks, so an unfinished one can be found and removed. */
  dncGeneration: (areaCode: string, generation: string) => ({ pk: `${PLATFORM_PREFIX}DNC`, sk: `GENERATION#${assertId(areaCode)}#${assertId(generation)}` }),
  dncGenerationsPrefix: (areaCode: string) => `GENERATION#${assertId(areaCode)}#`,
  /** One exchange (NXX) of a generation: a 10,000-bit bitmap of its listed line numbers. */
  dncExchange: (areaCode: string, generation: string, exchange: string) => ({
    pk: `${PLATFORM_PREFIX}DNC#${assertId(areaCode)}#${assertId(generation)}#${assertId(exchange)}`,
    sk: 'LINES',
  }),
} as const;

/**
 * The transactional outbox (shared/events/outbox.ts): a tenant's event log, and a platform
 * marker per event not yet relayed to delivery, spread over a few shards.
 */
export const OUTBOX_SHARDS = 4;
const outboxShard = (eventId: string) => createHash('sha256').update(eventId).digest()[0]! % OUTBOX_SHARDS;
export const outboxKeys = {
  eventsPartition: (tenantId: string) => `${tenantPk(tenantId)}#EVENTS`,
  event: (tenantId: string, eventId: string) => ({ pk: `${tenantPk(tenantId)}#EVENTS`, sk: `EVENT#${assertId(eventId)}` }),
  pendingPartition: (shard: number) => `${PLATFORM_PREFIX}OUTBOX#${shard}`,
  pending: (eventId: string) => ({ pk: `${PLATFORM_PREFIX}OUTBOX#${outboxShard(eventId)}`, sk: assertId(eventId) }),
} as const;

/**
 * Webhooks (shared/repositories/webhook-*.ts): the tenant's single endpoint (its sealed
 * signing secrets inside), the delivery ledger's attempt rows beside each event in the
 * tenant's event log (`ATTEMPT#<evt>#<nnnn>`: one Query reads an event's attempts in order),
 * and a count of delivered events per type (the receptionist action targets' delivery_count).
 */
export const webhookKeys = {
  endpoint: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'WEBHOOK_ENDPOINT' }),
  attemptsPrefix: (eventId: string) => `ATTEMPT#${assertId(eventId)}#`,
  attempt: (tenantId: string, eventId: string, attempt: number) => ({
    pk: `${tenantPk(tenantId)}#EVENTS`,
    sk: `ATTEMPT#${assertId(eventId)}#${String(attempt).padStart(4, '0')}`,
  }),
  deliveredCount: (tenantId: string, endpointId: string, eventType: string) => ({
    pk: tenantPk(tenantId),
    sk: `WEBHOOK_DELIVERED#${assertId(endpointId)}#${assertId(eventType)}`,
  }),
  /**
   * gsi1 attributes a pending event carries (and loses once delivered, failed or skipped):
   * `PLATFORM#WEBHOOK_DUE#<shard>` / `<next attempt ISO>#<tenant>#<evt>`, a sparse due index
   * the overdue sweep queries for attempts whose queue message was lost.
   */
  duePartition: (shard: number) => `${PLATFORM_PREFIX}WEBHOOK_DUE#${shard}`,
  dueIndex: (dueAt: string, tenantId: string, eventId: string) => ({
    gsi1pk: `${PLATFORM_PREFIX}WEBHOOK_DUE#${outboxShard(assertId(eventId))}`,
    gsi1sk: `${dueAt}#${assertId(tenantId)}#${eventId}`,
  }),
} as const;

export const isPlatformPartition = (partition: string): boolean => partition.startsWith(PLATFORM_PREFIX);

/** True when a partition (table or index) value belongs to the tenant. */
export const belongsToTenant = (partition: string, tenantId: string): boolean =>
  partition === tenantPk(tenantId) || partition.startsWith(`${tenantPk(tenantId)}#`);

/**
 * Outbound dispatch (see docs/decisions/dispatch-and-carrier.md; shared/repositories/outbound-calls.ts):
 *  - due items, `PLATFORM#DUE#<shard>` / `<scheduled_for ISO>#<tenant>#<call>`: a scheduled
 *    call waiting for its instant; the scheduler queries each shard for sk ≤ now;
 *  - dialing watches, `PLATFORM#DIALING#<shard>` / `<dialing_at ISO>#<tenant>#<call>`: a call
 *    moved to dialing whose carrier id is not yet known; the reconciler fails old ones;
 *  - dial pacing, `PLATFORM#CPS#<tenant>#<account>` / `PACE`: the instant of the account's
 *    next free dial grant and its grant counter, and `LANE#<i>`: the dial holding each of its
 *    cps lanes (all TTL'd), the cross-worker cps limiter (shared/policy/dial-pacing.ts);
 *  - unfinished watches, `PLATFORM#UNFINISHED#<shard>` / `<since ISO>#<tenant>#<call>`: a call
 *    the carrier took (its CallSid is linked) and has not ended; the reconciler asks the
 *    carrier about old ones (shared/calls/unfinished-calls.ts);
 *  - analysis watches, `PLATFORM#ANALYSIS#<shard>` / `<since ISO>#<tenant>#<call>`: a call
 *    that ended and is not scored yet; the scheduler re-sends its analysis request
 *    (shared/calls/analysis-resend.ts).
 * Shards spread a burst of calls over partitions (by the call id's hash).
 */
export const DISPATCH_SHARDS = 4;
const dispatchShard = (callId: string) => createHash('sha256').update(callId).digest()[0]! % DISPATCH_SHARDS;
export const dispatchKeys = {
  duePartition: (shard: number) => `${PLATFORM_PREFIX}DUE#${shard}`,
  due: (scheduledFor: string, tenantId: string, callId: string) => ({
    pk: `${PLATFORM_PREFIX}DUE#${dispatchShard(assertId(callId))}`,
    sk: `${scheduledFor}#${assertId(tenantId)}#${callId}`,
  }),
  dialingPartition: (shard: number) => `${PLATFORM_PREFIX}DIALING#${shard}`,
  dialing: (dialingAt: string, tenantId: string, callId: string) => ({
    pk: `${PLATFORM_PREFIX}DIALING#${dispatchShard(assertId(callId))}`,
    sk: `${dialingAt}#${assertId(tenantId)}#${callId}`,
  }),
  unfinishedPartition: (shard: number) => `${PLATFORM_PREFIX}UNFINISHED#${shard}`,
  unfinished: (since: string, tenantId: string, callId: string) => ({
    pk: `${PLATFORM_PREFIX}UNFINISHED#${dispatchShard(assertId(callId))}`,
    sk: `${since}#${assertId(tenantId)}#${callId}`,
  }),
  analysisPartition: (shard: number) => `${PLATFORM_PREFIX}ANALYSIS#${shard}`,
  analysis: (since: string, tenantId: string, callId: string) => ({
    pk: `${PLATFORM_PREFIX}ANALYSIS#${dispatchShard(assertId(callId))}`,
    sk: `${since}#${assertId(tenantId)}#${callId}`,
  }),
  cps: (tenantId: string, accountId: string) => ({ pk: `${PLATFORM_PREFIX}CPS#${assertId(tenantId)}#${assertId(accountId)}`, sk: 'PACE' }),
  cpsLane: (tenantId: string, accountId: string, lane: number) => ({
    pk: `${PLATFORM_PREFIX}CPS#${assertId(tenantId)}#${assertId(accountId)}`,
    sk: `LANE#${lane}`,
  }),
} as const;

/**
 * Campaigns (see docs/decisions/campaigns.md). The pool and the campaign live in the tenant's partition
 * (`NUMBER_POOL#<npl>`, `CAMPAIGN#<cmp>`: listed newest first). Each campaign has a partition
 * of its own, `TENANT#<t>#CAMPAIGN#<cmp>`, holding one row per targeted contact
 * (`CONTACT#<con>`: the CampaignOutcomeSummary, paged in contact order) and its work queue
 * (`QUEUE#<not before ISO>#<con>`: a contact waiting for its next attempt, read oldest first
 * up to the free slots). `PLATFORM#CAMPAIGNS` / `<t>#<cmp>` marks a campaign the scheduler
 * tick must drive (scrubbing, running, paused with work, cancelled with a sweep to finish).
 */
export const campaignPartition = (tenantId: string, campaignId: string) => `${tenantPk(tenantId)}#CAMPAIGN#${assertId(campaignId)}`;
export const campaignKeys = {
  pool: (tenantId: string, poolId: string) => ({ pk: tenantPk(tenantId), sk: `NUMBER_POOL#${assertId(poolId)}` }),
  poolsPrefix: 'NUMBER_POOL#',
  campaign: (tenantId: string, campaignId: string) => ({ pk: tenantPk(tenantId), sk: `CAMPAIGN#${assertId(campaignId)}` }),
  campaignsPrefix: 'CAMPAIGN#',
  row: (tenantId: string, campaignId: string, contactId: string) => ({ pk: campaignPartition(tenantId, campaignId), sk: `CONTACT#${assertId(contactId)}` }),
  rowsPrefix: 'CONTACT#',
  queue: (tenantId: string, campaignId: string, notBefore: string, contactId: string) => ({
    pk: campaignPartition(tenantId, campaignId),
    sk: `QUEUE#${notBefore}#${assertId(contactId)}`,
  }),
  queuePrefix: 'QUEUE#',
  /** Counter shard `shard` of a campaign: its own partition key, so the counters' writes spread (docs/capacity.md). */
  counters: (tenantId: string, campaignId: string, shard: number) => ({
    pk: `${campaignPartition(tenantId, campaignId)}#COUNTERS#${shard}`,
    sk: 'COUNTERS',
  }),
  /** Where an attempt's counters go: its shard, or the campaign item for an attempt launched before shards. */
  counterOf: (tenantId: string, campaignId: string, shard: number | null | undefined) =>
    typeof shard === 'number' ? campaignKeys.counters(tenantId, campaignId, shard) : campaignKeys.campaign(tenantId, campaignId),
  activePartition: `${PLATFORM_PREFIX}CAMPAIGNS`,
  active: (tenantId: string, campaignId: string) => ({ pk: `${PLATFORM_PREFIX}CAMPAIGNS`, sk: `${assertId(tenantId)}#${assertId(campaignId)}` }),
} as const;

/**
 * What calls produce (see docs/decisions/call-analysis-and-outcomes.md): integration (calendar) connections, survey responses,
 * qualification outcomes and their fit reviews, receptionist handoffs and the mobile
 * activity timeline. Low-volume tenant records live in the tenant's partition; a
 * connection's calendar events in the connection's own partition.
 */
export const integrationKeys = {
  connection: (tenantId: string, connectionId: string) => ({ pk: tenantPk(tenantId), sk: `INTEGRATION#${assertId(connectionId)}` }),
  connectionsPrefix: 'INTEGRATION#',
  /** The tenant's one active calendar connection (a guard: at most one at a time). */
  activeCalendar: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'CALENDAR_CONNECTION' }),
  /** An event booked on a sandbox calendar (what its free/busy reports). */
  sandboxEvent: (tenantId: string, connectionId: string, startsAt: string, eventId: string) => ({
    pk: `${tenantPk(tenantId)}#INTEGRATION#${assertId(connectionId)}`,
    sk: `EVENT#${startsAt}#${assertId(eventId)}`,
  }),
  sandboxEventsPartition: (tenantId: string, connectionId: string) => `${tenantPk(tenantId)}#INTEGRATION#${assertId(connectionId)}`,
  /** Sort-key bound of a sandbox calendar's events starting at `iso` (range reads). */
  sandboxEventsFrom: (iso: string) => `EVENT#${iso}`,
  /** A pending OAuth authorization (the callback has only `state` to find it by). */
  oauthState: (state: string) => ({ pk: `${PLATFORM_PREFIX}OAUTH_STATE#${assertId(state)}`, sk: 'STATE' }),
  /** The sandbox's own Google-like authorization codes and tokens (platform-side, like the sandbox carrier). */
  sandboxOauthCode: (code: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX#OAUTH`, sk: `CODE#${assertId(code)}` }),
  sandboxOauthToken: (tokenHash: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX#OAUTH`, sk: `TOKEN#${assertId(tokenHash)}` }),
  sandboxOauthGrantRevoked: (grantId: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX#OAUTH`, sk: `REVOKED#${assertId(grantId)}` }),
  /** An event on a sandbox Google calendar (one calendar per grant). */
  sandboxGoogleEvent: (grantId: string, eventId: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX#GCAL#${assertId(grantId)}`, sk: `EVENT#${assertId(eventId)}` }),
  /** A failure the sandbox Google answers once to an insert of this event id (tests inject it). */
  sandboxGoogleInsertFault: (eventId: string) => ({ pk: `${PLATFORM_PREFIX}SANDBOX#GCAL#FAULTS`, sk: `INSERT#${assertId(eventId)}` }),
  sandboxGoogleEventsPartition: (grantId: string) => `${PLATFORM_PREFIX}SANDBOX#GCAL#${assertId(grantId)}`,
} as const;

export const surveyKeys = {
  response: (tenantId: string, responseId: string) => ({ pk: tenantPk(tenantId), sk: `SURVEY_RESPONSE#${assertId(responseId)}` }),
  responsesPrefix: 'SURVEY_RESPONSE#',
  /** One response per call: the guard the analysis worker's conditional put checks. */
  byCall: (tenantId: string, callId: string) => ({ pk: callPartition(tenantId, callId), sk: 'SURVEY_RESPONSE' }),
} as const;

export const workflowKeys = {
  /** A record_qualification outcome lives in its call's partition (the call detail reads them with the call). */
  outcome: (tenantId: string, callId: string, outcomeId: string) => ({ pk: callPartition(tenantId, callId), sk: `QUALIFICATION#${assertId(outcomeId)}` }),
  outcomesPrefix: 'QUALIFICATION#',
  /** Append-only review history of an outcome. */
  review: (tenantId: string, callId: string, outcomeId: string, reviewId: string) => ({
    pk: callPartition(tenantId, callId),
    sk: `QUALIFICATION_REVIEW#${assertId(outcomeId)}#${assertId(reviewId)}`,
  }),
  reviewsPrefix: (outcomeId: string) => `QUALIFICATION_REVIEW#${assertId(outcomeId)}#`,
  /** Finds an outcome's call from the id in POST /v1/workflow-outcomes/{action_id}/fit-reviews. */
  pointer: (tenantId: string, outcomeId: string) => ({ pk: tenantPk(tenantId), sk: `WORKFLOW_OUTCOME#${assertId(outcomeId)}` }),
} as const;

export const handoffKeys = {
  handoff: (tenantId: string, handoffId: string) => ({ pk: tenantPk(tenantId), sk: `HANDOFF#${assertId(handoffId)}` }),
  /** One handoff per runtime action on a call (put if absent). */
  byAction: (tenantId: string, callId: string, actionId: string) => ({ pk: callPartition(tenantId, callId), sk: `HANDOFF#${assertId(actionId)}` }),
  /** One booking per 15-minute grid cell on a connection (a booking locks every cell it covers: overlapping slots cannot both commit). */
  slotLock: (tenantId: string, connectionId: string, startsAt: string) => ({
    pk: `${tenantPk(tenantId)}#INTEGRATION#${assertId(connectionId)}`,
    sk: `SLOT#${startsAt}`,
  }),
} as const;

/**
 * The mobile activity timeline: one item per activity in the tenant's activity partition,
 * sorted by `<occurred_at>#<activity id>` (newest first = a reverse range read), written in the
 * transaction that creates the resource it points at.
 */
export const activityKeys = {
  partition: (tenantId: string) => `${tenantPk(tenantId)}#ACTIVITY`,
  item: (tenantId: string, occurredAt: string, activityId: string) => ({
    pk: `${tenantPk(tenantId)}#ACTIVITY`,
    sk: `ACT#${occurredAt}#${assertId(activityId)}`,
  }),
  prefix: 'ACT#',
} as const;

/**
 * Usage and billing (see docs/decisions/billing.md; shared/repositories/usage-ledger.ts, billing.ts, invoices.ts).
 *  - The usage ledger: a partition per tenant and period, `TENANT#<t>#USAGE#<YYYY-MM>`, holding
 *    one append-only row per meter per source (`ROW#<source>#<meter>`: the source names the
 *    call, runtime event or message, so the key is deterministic and a put-if-absent meters a
 *    source once) and the period's running totals per settlement and meter
 *    (`TOTAL#<billed|sandbox>#<meter>#<shard 0-7>`, ADDed in the row's transaction to the shard
    its source hashes to, so concurrent sources rarely touch one item; the summary sums the shards).
 *  - The tenant's billing account (`BILLING`: plan, budget, receptionist connections), its
 *    invoices (`INVOICE#<inv>`, top-level `status`; one per period through the guard
 *    `INVOICE_PERIOD#<YYYY-MM>`) and receptionist purchases (`RECEPTIONIST_PURCHASE#<rcp>`),
 *    in the tenant's partition.
 *  - Platform: the plans (`PLATFORM#PLANS` / `PLAN#<id>`), the directory of billing accounts the
 *    invoice job walks (`PLATFORM#BILLING_ACCOUNTS` / `<tenant>`), and the payment provider's
 *    invoice id → our invoice (`PLATFORM#PROVIDER_INVOICE#<id>`), how its webhooks find it.
 */
export const usagePartition = (tenantId: string, period: string) => `${tenantPk(tenantId)}#USAGE#${assertId(period)}`;
export const usageKeys = {
  row: (tenantId: string, period: string, source: string, meter: string) => ({
    pk: usagePartition(tenantId, period),
    sk: `ROW#${assertId(source)}#${assertId(meter)}`,
  }),
  rowsPrefix: 'ROW#',
  /** One shard of a running total (`shard` 0..USAGE_TOTAL_SHARDS − 1, chosen by the source): the reader sums the shards. */
  total: (tenantId: string, period: string, settlement: string, meter: string, shard: number) => ({
    pk: usagePartition(tenantId, period),
    sk: `TOTAL#${assertId(settlement)}#${assertId(meter)}#${shard}`,
  }),
  totalsPrefix: 'TOTAL#',
} as const;

export const billingKeys = {
  account: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'BILLING' }),
  invoice: (tenantId: string, invoiceId: string) => ({ pk: tenantPk(tenantId), sk: `INVOICE#${assertId(invoiceId)}` }),
  invoicesPrefix: 'INVOICE#',
  invoicePeriod: (tenantId: string, period: string) => ({ pk: tenantPk(tenantId), sk: `INVOICE_PERIOD#${assertId(period)}` }),
  purchase: (tenantId: string, purchaseId: string) => ({ pk: tenantPk(tenantId), sk: `RECEPTIONIST_PURCHASE#${assertId(purchaseId)}` }),
  plansPartition: `${PLATFORM_PREFIX}PLANS`,
  plan: (planId: string) => ({ pk: `${PLATFORM_PREFIX}PLANS`, sk: `PLAN#${assertId(planId)}` }),
  plansPrefix: 'PLAN#',
  directoryPartition: `${PLATFORM_PREFIX}BILLING_ACCOUNTS`,
  directory: (tenantId: string) => ({ pk: `${PLATFORM_PREFIX}BILLING_ACCOUNTS`, sk: assertId(tenantId) }),
  providerInvoice: (providerInvoiceId: string) => ({ pk: `${PLATFORM_PREFIX}PROVIDER_INVOICE#${assertId(providerInvoiceId)}`, sk: 'INVOICE' }),
  /** A provider webhook event applied to one of the tenant's invoices (put if absent: a replay is recognised). */
  providerEvent: (tenantId: string, eventId: string) => ({ pk: tenantPk(tenantId), sk: `PROVIDER_EVENT#${assertId(eventId)}` }),
} as const;

/**
 * The AWS voice runtime host's items. A ConversationRelay session's state (the conversation
 * core's JSON state, the live connection id, a revision every write is conditioned on) sits
 * in its call's partition, so one call has at most one; a connection pointer from API
 * Gateway's connection id (all a $default or $disconnect invocation is told) names the call.
 */
export const relayKeys = {
  session: (tenantId: string, callId: string) => ({ pk: callPartition(tenantId, callId), sk: 'RELAY_SESSION' }),
  connection: (connectionId: string) => ({ pk: `${PLATFORM_PREFIX}RELAY_CONNECTION#${assertId(connectionId)}`, sk: 'RELAY_CONNECTION' }),
} as const;

/**
 * Knowledge packs: the pack item in the tenant partition (listed newest first), and a
 * partition per pack (`TENANT#<t>#KPACK#<kp>`) holding its draft documents (`DOC#<kpd>`), its
 * immutable versions (`VERSION#<n>`) and each version's passages + index, gzipped and cut into
 * chunks under the item limit (`BLOB#<content hash>#<i>`: named by content, so a publish that
 * loses its race never overwrites the chunks of the one that won).
 */
const packPartition = (tenantId: string, packId: string) => `${tenantPk(tenantId)}#KPACK#${assertId(packId)}`;
export const knowledgePackKeys = {
  pack: (tenantId: string, packId: string) => ({ pk: tenantPk(tenantId), sk: `KPACK#${assertId(packId)}` }),
  packsPrefix: 'KPACK#',
  partition: packPartition,
  document: (tenantId: string, packId: string, documentId: string) => ({ pk: packPartition(tenantId, packId), sk: `DOC#${assertId(documentId)}` }),
  documentsPrefix: 'DOC#',
  version: (tenantId: string, packId: string, version: number) => ({ pk: packPartition(tenantId, packId), sk: versionSk(version) }),
  versionsPrefix: 'VERSION#',
  blobChunk: (tenantId: string, packId: string, contentHash: string, index: number) => ({
    pk: packPartition(tenantId, packId),
    sk: `BLOB#${assertId(contentHash)}#${String(index).padStart(4, '0')}`,
  }),
  blobPrefix: (contentHash: string) => `BLOB#${assertId(contentHash)}#`,
} as const;
