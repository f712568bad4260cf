/**
 * Gathers every compliance-engine input for (tenant, agent version, contact, at), with as
 * few DynamoDB calls as the layout allows, in two parallel rounds:
 *
 *   round 1 (parallel, 4 calls)
 *     · the agent's latest published version: Query its version partition, newest first,
 *       Limit 1 (or the pinned version the caller passes: no call);
 *     · the contact, its consents and its attempts placed in the 24 h up to `at`: ONE Query
 *       on the contact's partition over `ATTEMPT#` … `CONTACT` (contactHistoryRange);
 *     · the tenant's phone numbers and its telephony accounts: one Query each;
 *   round 2 (parallel, needs the contact's number)
 *     · is the number suppressed: GetItem of its ACTIVE item (1 call);
 *     · National DNC facts for its area code: 2 GetItems (3 when the exchange lists no one);
 *       read only for marketing, the only purpose the National DNC rules apply to.
 *
 * So 7 calls for a marketing call to a US number (5 for informational or a non-US number), whatever the
 * number of consents or recent attempts (more only past a 1 MB page). Every read is
 * strongly consistent: a suppression or an attempt written a moment ago counts.
 */
import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { agentKeys, agentPartition, collections, contactKeys, contactPartition, tenantPk } from '../db/keys.js';
import { isId } from '../ids.js';
import { isUsJurisdiction, placeOf, type AttemptFacts, type ComplianceInputs, type ConsentFacts, type DncSnapshotFacts, type ProfileFacts } from '../policy/compliance/index.js';
import { attemptFactOf, isAttemptItem, recentAttemptFilter } from '../repositories/contact-attempts.js';
import type { ConsentRecord, ContactRecord } from '../repositories/contacts.js';
import { dncFacts } from '../repositories/dnc-snapshots.js';
import type { PhoneNumberRecord } from '../repositories/phone-numbers.js';
import { getActiveSuppression } from '../repositories/suppressions.js';
import type { AgentVersion } from '../schemas/agents.js';
import { decideCaller, type CallerAccount, type CallerOutcome, type CallerPool } from './caller-decision.js';

const T = () => tableName();

/** Every page of a Query (one call unless the result passes 1 MB). */
async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The agent's latest published version, or undefined when it has none (or no such agent). */
export async function latestPublishedVersion(tenantId: string, agentId: string): Promise<AgentVersion | undefined> {
  if (!isId(agentId)) return undefined;
  const out = await db().send(
    new QueryCommand({
      TableName: T(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': agentPartition(tenantId, agentId), ':prefix': agentKeys.versionsPrefix },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const item = out.Items?.[0];
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, type: _type, tenant_id: _tenant, ...version } = item;
  return version as AgentVersion; // the version as published, without its storage keys
}

/** Whether the agent exists at all (only asked when it has no published version: 409 vs 422). */
export async function agentExists(tenantId: string, agentId: string): Promise<boolean> {
  if (!isId(agentId)) return false;
  const out = await db().send(new GetCommand({ TableName: T(), Key: agentKeys.agent(tenantId, agentId), ConsistentRead: true, ProjectionExpression: 'pk' }));
  return out.Item !== undefined;
}

export interface ContactHistory {
  contact: ContactRecord;
  consents: ConsentFacts[];
  /** Attempts placed in [at − 24 h, at]. */
  attempts: AttemptFacts[];
}

/** The contact, its consents and its recent attempts: one Query. undefined: no such contact. */
export async function readContactHistory(tenantId: string, contactId: string, at: Date): Promise<ContactHistory | undefined> {
  if (!isId(contactId)) return undefined;
  const attempts = recentAttemptFilter(at);
  const items = await queryAll({
    TableName: T(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    // Keeps the contact, every consent, and attempts placed in [at − 24 h, at] (by `type`: a filter may not name sk).
    FilterExpression: `#itemType IN (:contactType, :consentType) OR ${attempts.expression}`,
    ExpressionAttributeNames: attempts.names,
    ExpressionAttributeValues: {
      ...attempts.values,
      ':pk': contactPartition(tenantId, contactId),
      ':from': contactKeys.contactHistoryRange.from,
      ':to': contactKeys.contactHistoryRange.to,
      ':contactType': 'contact',
      ':consentType': 'consent',
    },
    ConsistentRead: true,
  });
  const contactSk = contactKeys.contact(tenantId, contactId).sk;
  const contact = items.find((i) => i.sk === contactSk) as ContactRecord | undefined;
  if (!contact) return undefined;
  const consents = items
    .filter((i) => typeof i.sk === 'string' && i.sk.startsWith(contactKeys.consentsPrefix))
    .map((i) => {
      const c = i as unknown as ConsentRecord;
      return { basis: c.consent_basis, scope: c.scope, captured_at: c.captured_at, expires_at: c.expires_at ?? null };
    });
  return { contact, consents, attempts: items.filter(isAttemptItem).map(attemptFactOf) };
}

export type CallerNumber = Pick<PhoneNumberRecord, 'id' | 'phone_e164' | 'telephony_account_id' | 'status' | 'capabilities' | 'reputation_state' | 'daily_dial_cap' | 'dials_day' | 'dials_count' | 'created_at' | 'a2p_campaign_ref'>;

/** The tenant's numbers and telephony accounts, as the caller choice needs them: two parallel Queries. */
export async function readCallerPool(tenantId: string): Promise<CallerPool<CallerNumber>> {
  const collection = (prefix: string, projection: string[]) =>
    queryAll({
      TableName: T(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': tenantPk(tenantId), ':prefix': prefix },
      ProjectionExpression: projection.map((_, i) => `#p${i}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(projection.map((p, i) => [`#p${i}`, p])),
      ConsistentRead: true,
    });
  const [numbers, accounts] = await Promise.all([
    collection(collections.phoneNumbers, ['id', 'phone_e164', 'telephony_account_id', 'status', 'capabilities', 'reputation_state', 'daily_dial_cap', 'dials_day', 'dials_count', 'created_at', 'a2p_campaign_ref']),
    collection(collections.telephonyAccounts, ['id', 'verification_status', 'ftc_san_refs']),
  ]);
  return {
    numbers: numbers.map((n) => ({ ...n, a2p_campaign_ref: (n.a2p_campaign_ref as string | null) ?? null, daily_dial_cap: (n.daily_dial_cap as number | null) ?? null, dials_day: (n.dials_day as string | null) ?? null, dials_count: (n.dials_count as number) ?? 0 }) as CallerNumber),
    accounts: accounts.map((a) => ({ id: a.id as string, verification_status: a.verification_status as string, ftc_san_refs: (a.ftc_san_refs as CallerAccount['ftc_san_refs']) ?? [] })),
  };
}

/** The frozen compliance profile of a version as the engine reads it. */
export const profileFactsOf = (version: Pick<AgentVersion, 'compliance_profile'>): ProfileFacts | null => {
  const p = version.compliance_profile;
  if (!p) return null;
  return { call_purpose: p.call_purpose, subject: p.subject, seller_name: p.seller_name, calling_window: p.calling_window ?? null };
};

/** Suppression and National DNC facts of the callee's number (round 2). */
export async function readNumberFacts(tenantId: string, phone: string, profile: ProfileFacts | null): Promise<{ suppressed: boolean; dnc_snapshot: DncSnapshotFacts }> {
  // Exactly when the engine's registry rules apply: marketing, to a US number (the registry has no other area codes).
  const { areaCode, info } = placeOf(phone);
  const needsDnc = profile?.call_purpose === 'marketing' && areaCode !== null && isUsJurisdiction(info);
  const [active, dnc] = await Promise.all([getActiveSuppression(tenantId, phone), needsDnc ? dncFacts(areaCode!, phone) : Promise.resolve<DncSnapshotFacts>({ loaded: false })]);
  return { suppressed: active !== undefined, dnc_snapshot: dnc };
}

export type AgentRef = { agent_id: string } | { version: AgentVersion };

export type GatheredInputs =
  | { found: true; version: AgentVersion; contact: ContactRecord; caller: CallerOutcome<CallerNumber>; inputs: ComplianceInputs }
  /** What could not be found: the agent (or its published version) and/or the contact. */
  | { found: false; agent: 'ok' | 'unknown' | 'not_published'; contact: 'ok' | 'unknown' };

/**
 * Every engine input for a call of `agent` (its latest published version, or the pinned
 * version given) to `contactId` at `at`, plus the caller choice whose account's SAN refs
 * are among them.
 */
export async function gatherComplianceInputs(tenantId: string, agent: AgentRef, contactId: string, at: Date, opts: { numberIds?: readonly string[] } = {}): Promise<GatheredInputs> {
  const [version, history, tenantPool] = await Promise.all([
    'version' in agent ? Promise.resolve(agent.version) : latestPublishedVersion(tenantId, agent.agent_id),
    readContactHistory(tenantId, contactId, at),
    readCallerPool(tenantId),
  ]);
  if (!version || !history) {
    const agentState = version ? 'ok' : (await agentExists(tenantId, (agent as { agent_id: string }).agent_id)) ? 'not_published' : 'unknown';
    return { found: false, agent: agentState, contact: history ? 'ok' : 'unknown' };
  }
  // A campaign dials only from its pool's numbers (see docs/decisions/campaigns.md): the choice is among them.
  const pool = opts.numberIds ? { ...tenantPool, numbers: tenantPool.numbers.filter((n) => opts.numberIds!.includes(n.id)) } : tenantPool;
  const profile = profileFactsOf(version);
  const phone = history.contact.phone_e164;
  const caller = decideCaller(pool, phone, at);
  const facts = await readNumberFacts(tenantId, phone, profile);
  return {
    found: true,
    version,
    contact: history.contact,
    caller,
    inputs: {
      contact: { phone_e164: phone, timezone: history.contact.timezone ?? null, jurisdictions: history.contact.jurisdictions ?? [], consents: history.consents },
      profile,
      san_refs: caller.san_refs,
      suppressed: facts.suppressed,
      dnc_snapshot: facts.dnc_snapshot,
      recent_attempts: history.attempts,
    },
  };
}
