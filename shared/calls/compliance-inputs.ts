/**
 * Gathers every compliance-engine input for (tenant, agent version, contact, at), with as
 * few DynamoDB calls as the layout allows, in two parallel rounds:
 *
 *   round 1 (parallel, 2 calls; a route folds them into the credential's read: startCallReads)
 *     · the contact with its consents' facts, and its attempts placed in the 24 h up to `at`
 *       (the day items of `at` and of the day before): ONE BatchGetItem of three keys
 *       (readContactHistory; a contact stored before those items: one Query instead);
 *     · the tenant's phone numbers: one Query — or, for a route whose warm instance knows the
 *       ids that the numbers' membership version stands for, their items by key in the
 *       credential's read, with the version (a version that moved: one Query then);
 *   round 2 (1 call, needs the contact's number and the numbers' accounts)
 *     · ONE BatchGetItem (readCallPointFacts): the agent item (its latest version's number and
 *       immutable id), the number's suppression ACTIVE item, the area code's National DNC
 *       pointer (US numbers), the accounts of the numbers;
 *   then, only when needed
 *     · the version itself: kept per warm instance by its immutable id (version-cache.ts),
 *       so one GetItem the first time an instance meets that version, none after;
 *     · National DNC: the exchange item of the pointer's generation (marketing to a US
 *       number, the only calls the registry rules apply to);
 *     · every account of the tenant: only when no number can place the call (the scrub
 *       question is then the tenant's, over all its accounts' SAN refs).
 *
 * So 3 calls once the version (and, for marketing, the DNC exchange) is known, whatever the
 * number of consents or recent attempts; none besides the credential's read when a route judges
 * a contact it judged before, for a tenant whose numbers it knows (startCallReads). Every read
 * is strongly consistent and nothing of the decision's changing inputs is cached (only keys are
 * kept, each checked in the same read): a suppression, a consent, an attempt, a publish or a
 * number committed a moment ago counts.
 */
import { now } from '../clock.js';
import { type ItemKey, type ItemsByKey, itemAt, MAX_BATCH_KEYS } from '../db/batch-get.js';
import { isId } from '../ids.js';
import { isUsJurisdiction, placeOf } from '../policy/compliance/numbering.js';
import type { ComplianceInputs, DncSnapshotFacts, ProfileFacts } from '../policy/compliance/types.js';
import type { TelephonyProviderName } from '../policy/telephony-states.js';
import { RecentlyUsed } from '../recently-used.js';
import { type AgentHead, getAgentVersionNumber, type PinnedVersion, readAgentHead } from '../repositories/agent-heads.js';
import { callPointFactsOf, callPointKeys, MAX_BATCHED_ACCOUNTS, readCallPointFacts } from '../repositories/call-inputs.js';
import {
  type CallerAccountFacts,
  callerNumberKeys,
  callerNumbersFrom,
  numbersVersionKey,
  numbersVersionOf,
  readCallerAccounts,
  readCallerNumbers,
  type CallerNumber as StoredCallerNumber,
} from '../repositories/caller-pool.js';
import { type ContactFacts, type ContactHistory, contactHistoryIn, contactHistoryKeys, readContactHistory } from '../repositories/contact-attempts.js';
import { dncFacts, dncFactsAfterPointer } from '../repositories/dnc-facts.js';
import { isSuppressed } from '../repositories/suppression-state.js';
import { type CallerOutcome, type CallerPool, decideCaller } from './caller-decision.js';
import { VersionCache } from './version-cache.js';

export { readContactHistory } from '../repositories/contact-attempts.js';

const publishedVersions = new VersionCache<PinnedVersion>();

/** The version the agent item names as its latest, or undefined when it was never published. */
export async function latestVersionOf(tenantId: string, agentId: string, head: AgentHead): Promise<PinnedVersion | undefined> {
  if (head.version_count === 0) return undefined;
  const id = head.latest_version_id;
  // Kept only when the item read is the one the agent names (an agent stored before it named its latest id is read each time).
  return publishedVersions.get(
    tenantId,
    id,
    () => getAgentVersionNumber(tenantId, agentId, head.version_count),
    (version) => version.id === id && version.agent_id === agentId,
  );
}

/** A number the call could be placed from; `provider` is its account's carrier when the account was read with it. */
export type CallerNumber = StoredCallerNumber & { provider?: TelephonyProviderName | null };

/** The tenant's numbers and telephony accounts, as the caller choice needs them: two parallel Queries. */
export async function readCallerPool(tenantId: string): Promise<CallerPool<CallerNumber>> {
  const [numbers, accounts] = await Promise.all([readCallerNumbers(tenantId), readCallerAccounts(tenantId)]);
  return { numbers, accounts };
}

/** The frozen compliance profile of a version as the engine reads it. */
export const profileFactsOf = (version: Pick<PinnedVersion, 'compliance_profile'>): ProfileFacts | null => {
  const p = version.compliance_profile;
  if (!p) return null;
  return { call_purpose: p.call_purpose, subject: p.subject, seller_name: p.seller_name, calling_window: p.calling_window ?? null };
};

/** The US area code of `phone` whose National DNC snapshot a call of `profile` must consult, or null. */
function dncAreaCodeOf(phone: string): string | null {
  const { areaCode, info } = placeOf(phone);
  return areaCode !== null && isUsJurisdiction(info) ? areaCode : null;
}

/** Exactly when the engine's registry rules apply: marketing (the registry has only US area codes). */
const needsDnc = (profile: ProfileFacts | null) => profile?.call_purpose === 'marketing';

/** Suppression and National DNC facts of the callee's number (texts read them this way). */
export async function readNumberFacts(
  tenantId: string,
  phone: string,
  profile: ProfileFacts | null,
): Promise<{ suppressed: boolean; dnc_snapshot: DncSnapshotFacts }> {
  const areaCode = needsDnc(profile) ? dncAreaCodeOf(phone) : null;
  const [suppressed, dnc] = await Promise.all([
    isSuppressed(tenantId, phone),
    areaCode ? dncFacts(areaCode, phone) : Promise.resolve<DncSnapshotFacts>({ loaded: false }),
  ]);
  return { suppressed, dnc_snapshot: dnc };
}

export type AgentRef = { agent_id: string } | { version: PinnedVersion };

type FirstRound = [ContactHistory | undefined, StoredCallerNumber[]];
const firstRound = (tenantId: string, contactId: string, at: Date): Promise<FirstRound> =>
  Promise.all([readContactHistory(tenantId, contactId, at), readCallerNumbers(tenantId)]);

/**
 * The tenant's numbers in a route's early reads: queried alongside the credential's read, or
 * read by key in it — the numbers' membership version and, when this instance knows the ids
 * that version stands for (`known`), their items.
 */
type EarlyNumbers = { query: Promise<StoredCallerNumber[]> } | { known: NumbersGuess | undefined };

/**
 * The ids of a tenant's numbers as a Query read them AFTER their membership version was seen
 * (numbersVersionOf): while the version still reads the same, no number was created or deleted,
 * so reading these ids' items by key reads every number. Ids only: each item is read afresh.
 */
interface NumbersGuess {
  version: number;
  ids: readonly string[];
}

const numberGuesses = new RecentlyUsed<string, NumbersGuess>(256);

/** Keys of the credential's BatchGetItem besides a judgement's: the API key, the tenant, an idempotency record. */
const CREDENTIAL_KEYS = 3;
/** A tenant with more numbers than this has them queried: their items would crowd the credential's read. */
const MAX_GUESSED_NUMBERS = 40;

function earlyNumbers(tenantId: string, pointKeys: number): { numbers: EarlyNumbers; keys: ItemKey[] } {
  const room = MAX_BATCH_KEYS - CREDENTIAL_KEYS - pointKeys - 1;
  if (room < 0) {
    const query = readCallerNumbers(tenantId);
    query.catch(() => {}); // awaited only by a request whose credential was proven
    return { numbers: { query }, keys: [] };
  }
  const guess = numberGuesses.get(tenantId);
  const known = guess && guess.ids.length <= Math.min(room, MAX_GUESSED_NUMBERS) ? guess : undefined;
  return { numbers: { known }, keys: [numbersVersionKey(tenantId), ...(known ? callerNumberKeys(tenantId, known.ids) : [])] };
}

/**
 * The numbers of early reads: the Query's, the items read by key when the version still names
 * the ids known, else a Query now — after the version was read, so its ids are kept for it.
 */
async function numbersOf(tenantId: string, numbers: EarlyNumbers, items: ItemsByKey): Promise<StoredCallerNumber[]> {
  if ('query' in numbers) return numbers.query;
  const version = numbersVersionOf(itemAt(items, numbersVersionKey(tenantId)));
  const known = numbers.known?.version === version ? callerNumbersFrom(items, tenantId, numbers.known.ids) : undefined;
  if (known) return known;
  const read = await readCallerNumbers(tenantId);
  if (read.length <= MAX_GUESSED_NUMBERS) numberGuesses.set(tenantId, { version, ids: read.map((n) => n.id) });
  else numberGuesses.delete(tenantId);
  return read;
}

/** Round 1 of a judgement, started before the request is validated (see startCallReads). */
export interface EarlyCallReads {
  tenantId: string;
  contactId: string;
  agentId: string | undefined;
  /** The instant judged: the one the attempts were read for. */
  at: Date;
  numbers: EarlyNumbers;
  /** The number and accounts whose point reads were asked of the credential's read (`guessCallPoint` below). */
  guess: CallPointGuess | undefined;
}

/** What the route hands back once the credential is proven: the handle, and the items it asked of the credential's read. */
export interface EarlyCall {
  handle: EarlyCallReads;
  items: ItemsByKey;
}

/**
 * Round 1 for the contact a request body names (as sent, not yet validated), judged at `at`
 * (undefined: now): started by a route with the credential's read, so the contact and the
 * numbers cost no round trip of their own; and, when this instance guesses the contact's
 * number and the numbers' accounts, the keys of the point reads too, for the credential's
 * BatchGetItem (`keys`). gatherComplianceInputs uses the reads only for the same tenant,
 * contact and instant, and the point items only when the guess was right; otherwise they are
 * read again.
 */
export function startCallReads(tenantId: string, body: unknown, at?: unknown): { handle: EarlyCallReads; keys: ItemKey[] } | undefined {
  const { contact_id: contactId, agent_id: agentId } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const when = at === undefined ? now() : typeof at === 'string' ? new Date(at) : undefined;
  if (typeof contactId !== 'string' || !isId(contactId) || !when || Number.isNaN(when.getTime())) return undefined;
  const agent = typeof agentId === 'string' && isId(agentId) ? agentId : undefined;
  const guess = agent === undefined ? undefined : guessCallPoint(tenantId, contactId);
  const pointKeys = guess
    ? callPointKeys({ tenantId, agentId: agent, phone: guess.phone, dncAreaCode: dncAreaCodeOf(guess.phone), accountIds: guess.accountIds })
    : [];
  const numbers = earlyNumbers(tenantId, pointKeys.length);
  return {
    handle: { tenantId, contactId, agentId: agent, at: when, numbers: numbers.numbers, guess },
    keys: [...contactHistoryKeys(tenantId, contactId, when), ...pointKeys, ...numbers.keys],
  };
}

export type GatheredInputs =
  | { found: true; version: PinnedVersion; contact: ContactFacts; caller: CallerOutcome<CallerNumber>; inputs: ComplianceInputs }
  /** What could not be found: the agent (or its published version) and/or the contact. */
  | { found: false; agent: 'ok' | 'unknown' | 'not_published'; contact: 'ok' | 'unknown' };

/** Unknown, never published or published: from the agent item (the error path, when round 2 did not read it). */
async function agentState(tenantId: string, agentId: string): Promise<'ok' | 'unknown' | 'not_published'> {
  const head = await readAgentHead(tenantId, agentId);
  if (!head) return 'unknown';
  return head.version_count > 0 ? 'ok' : 'not_published';
}

/** Numbers with their account's carrier, for the call record (no second read of the account). */
const withProviders = (numbers: readonly StoredCallerNumber[], accounts: readonly CallerAccountFacts[]): CallerNumber[] => {
  const provider = new Map(accounts.map((a) => [a.id, a.provider]));
  return numbers.map((n) => ({ ...n, provider: provider.get(n.telephony_account_id) ?? null }));
};

/**
 * Every engine input for a call of `agent` (its latest published version, or the pinned
 * version given) to `contactId` at `at`, plus the caller choice whose account's SAN refs
 * are among them.
 */
export async function gatherComplianceInputs(
  tenantId: string,
  agent: AgentRef,
  contactId: string,
  at: Date,
  opts: { numberIds?: readonly string[]; early?: EarlyCall } = {},
): Promise<GatheredInputs> {
  const agentId = 'version' in agent ? undefined : agent.agent_id;
  const early = opts.early?.handle;
  const started = early && early.tenantId === tenantId && early.contactId === contactId && early.at.getTime() === at.getTime() ? early : undefined;
  const [history, tenantNumbers] = await (started
    ? Promise.all([contactHistoryIn(opts.early!.items, tenantId, contactId, at), numbersOf(tenantId, started.numbers, opts.early!.items)])
    : firstRound(tenantId, contactId, at));
  if (!history) return { found: false, agent: agentId === undefined ? 'ok' : await agentState(tenantId, agentId), contact: 'unknown' };
  if (agentId !== undefined && !isId(agentId)) return { found: false, agent: 'unknown', contact: 'ok' };

  // A campaign dials only from its pool's numbers (see docs/decisions/campaigns.md): the choice is among them.
  const numbers = opts.numberIds ? tenantNumbers.filter((n) => opts.numberIds!.includes(n.id)) : tenantNumbers;
  const accountIds = [...new Set(numbers.map((n) => n.telephony_account_id))];
  const batchAccounts = accountIds.length <= MAX_BATCHED_ACCOUNTS;
  const phone = history.contact.phone_e164;
  const areaCode = dncAreaCodeOf(phone);
  const pointReads = { tenantId, agentId, phone, dncAreaCode: areaCode, accountIds: batchAccounts ? accountIds : [] };
  // Read with the credential when the guess named exactly these items (the same agent and number, every account).
  const guess = started?.guess;
  const guessed = guess && started.agentId === agentId && guess.phone === phone && batchAccounts && accountIds.every((id) => guess.accountIds.includes(id));
  const [point, allAccounts] = await Promise.all([
    guessed ? callPointFactsOf(pointReads, opts.early!.items) : readCallPointFacts(pointReads),
    batchAccounts ? Promise.resolve(undefined) : readCallerAccounts(tenantId),
  ]);
  const everyAccount = [...new Set(tenantNumbers.map((n) => n.telephony_account_id))];
  if (everyAccount.length <= MAX_BATCHED_ACCOUNTS) rememberCallPoint(tenantId, contactId, { phone, accountIds: everyAccount });

  let version: PinnedVersion | undefined;
  if ('version' in agent) version = agent.version;
  else if (point.agent) version = await latestVersionOf(tenantId, agent.agent_id, point.agent);
  if (!version) return { found: false, agent: point.agent ? 'not_published' : 'unknown', contact: 'ok' };

  const profile = profileFactsOf(version);
  const dncRead: Promise<DncSnapshotFacts> =
    needsDnc(profile) && areaCode ? dncFactsAfterPointer(areaCode, phone, point.dncPointer) : Promise.resolve({ loaded: false });
  const decide = (accounts: readonly CallerAccountFacts[]) => decideCaller({ numbers: withProviders(numbers, accounts), accounts }, phone, at);
  const first = decide(allAccounts ?? point.accounts);
  // No number can place the call: the SAN refs are then those of every account of the tenant, not only of the numbers'.
  const wantsEveryAccount = !allAccounts && (first.outcome === 'none_at_all' || (first.outcome === 'none_usable' && first.next === null));
  const [dnc, caller] = await Promise.all([dncRead, wantsEveryAccount ? readCallerAccounts(tenantId).then(decide) : first]);
  return {
    found: true,
    version,
    contact: history.contact,
    caller,
    inputs: {
      contact: {
        phone_e164: phone,
        timezone: history.contact.timezone ?? null,
        jurisdictions: history.contact.jurisdictions ?? [],
        consents: history.consents,
      },
      profile,
      san_refs: caller.san_refs,
      suppressed: point.suppressed,
      dnc_snapshot: dnc,
      recent_attempts: history.attempts,
    },
  };
}

/**
 * Which keys a judgement's point reads (readCallPointFacts) will name, guessed from the last
 * judgement this warm instance made for the same contact (its number) and tenant (its
 * numbers' accounts), so a route can read them with the credential, before the contact and
 * the numbers are known. Only keys are kept, never anything read: a guess is checked against
 * the contact and the numbers read in the same request, and a wrong one (a number changed, an
 * account added) costs the batch the request would have made anyway.
 */
interface CallPointGuess {
  phone: string;
  accountIds: readonly string[];
}

const phones = new RecentlyUsed<string, string>(4096);
const accounts = new RecentlyUsed<string, readonly string[]>(256);

function guessCallPoint(tenantId: string, contactId: string): CallPointGuess | undefined {
  const phone = phones.get(`${tenantId}|${contactId}`);
  const accountIds = accounts.get(tenantId);
  return phone === undefined || accountIds === undefined ? undefined : { phone, accountIds };
}

function rememberCallPoint(tenantId: string, contactId: string, point: CallPointGuess): void {
  phones.set(`${tenantId}|${contactId}`, point.phone);
  accounts.set(tenantId, point.accountIds);
}
