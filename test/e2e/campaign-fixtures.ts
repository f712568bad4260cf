/** Fixtures for the campaign suites: an imported list, a pool, a campaign, and what the sandbox carrier really did. */
import { now } from '../../shared/clock.js';
import { waitFor } from '../support/wait-for.js';
import { ALLOWED_AT, type CallWorld, INFO_SUBJECT, sandboxCallsFrom, setClock } from './call-fixtures.js';
import { activeNumber, randomNumber } from './telephony-fixtures.js';

type Api = CallWorld['api'];

const attestation = { signer_name: 'Sam Signer', signer_title: 'Ops', affirmation: 'They agreed in writing to reminder calls.', consent_basis: 'pewc' };

/** Import `phones` as a new list (imports create lists); returns the list id. */
export async function importList(api: Api, phones: readonly string[], name = `List ${Math.random().toString(36).slice(2, 8)}`): Promise<string> {
  const content = `Phone\r\n${phones.join('\r\n')}\r\n`;
  const res = await api('POST', '/v1/contact-imports', {
    body: {
      file_name: 'list.csv',
      content,
      column_mapping: { Phone: 'phone_e164' },
      consent_attestation: attestation,
      list_name: name,
      consent_scope: { purposes: [INFO_SUBJECT] },
    },
  });
  if (res.status !== 202 || res.body.status !== 'completed') throw new Error(`import failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.target_list_id as string;
}

/** A pool of the world's number plus `extra` more on the same account. */
export async function poolOf(w: CallWorld, extra = 1): Promise<{ id: string; numbers: string[] }> {
  const more = [];
  for (let i = 0; i < extra; i++) more.push(await activeNumber(w.api, { accountId: w.accountId, phone: randomNumber('212') }));
  const ids = [w.number.id, ...more.map((n) => n.id)];
  const res = await w.api('POST', '/v1/number-pools', { body: { name: 'Pool', phone_number_ids: ids } });
  if (res.status !== 201) throw new Error(`pool: ${JSON.stringify(res.body)}`);
  return { id: res.body.id, numbers: [w.number.phone_e164, ...more.map((n) => n.phone_e164)] };
}

export async function newCampaign(w: CallWorld, listId: string, poolId: string, over: Record<string, unknown> = {}) {
  const res = await w.api('POST', '/v1/campaigns', {
    body: { name: 'Reminders', agent_id: w.agentId, target: { contact_list_id: listId }, number_pool_id: poolId, telephony_account_id: w.accountId, ...over },
  });
  if (res.status !== 201) throw new Error(`campaign: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; status: string };
}

export const campaignOf = async (api: Api, id: string) => (await api('GET', `/v1/campaigns/${id}`)).body;

export const waitForStatus = (api: Api, id: string, status: string, timeoutMs = 120_000) =>
  waitFor(
    async () => {
      const c = await campaignOf(api, id);
      return c.status === status ? c : undefined;
    },
    { timeoutMs, intervalMs: 200, message: `campaign ${id} ${status}` },
  );

/** Every outcome row, following the cursor. */
export async function allRows(api: Api, id: string, query = ''): Promise<Record<string, any>[]> {
  const rows: Record<string, any>[] = [];
  let cursor: string | null = null;
  do {
    const page: any = (await api('GET', `/v1/campaigns/${id}/outcomes?limit=2${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
    rows.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
}

/** Move the platform clock `ms` ahead of where it stands now. */
export const advance = (ms: number) => setClock(now().getTime() + ms);

/** The sandbox carrier's calls from the pool's numbers: start (created) and end instants. */
export async function carrierCalls(numbers: readonly string[]) {
  const calls = (await Promise.all(numbers.map((n) => sandboxCallsFrom(n)))).flat();
  return calls.map((c) => ({
    to: c.to as string,
    created: Date.parse(c.created_at as string),
    ended: c.end_time ? Date.parse(c.end_time as string) : Number.POSITIVE_INFINITY,
    from: c.from as string,
  }));
}

/**
 * Over the carrier's own records (pure): the most calls alive at once, and the most calls
 * created within any one-second window of the carrier's clock (sliding, not per epoch
 * second): the ceiling a carrier enforces, which the paced grants keep (see
 * docs/decisions/dispatch-and-carrier.md).
 */
export function peaks(calls: { created: number; ended: number }[]) {
  let inFlight = 0;
  for (const c of calls) inFlight = Math.max(inFlight, calls.filter((o) => o.created <= c.created && o.ended > c.created).length);
  let perSecond = 0;
  for (const c of calls) perSecond = Math.max(perSecond, calls.filter((o) => o.created >= c.created && o.created < c.created + 1000).length);
  return { inFlight, perSecond };
}

/**
 * A Wednesday 10:00 in New York (ALLOWED_AT plus whole weeks) after the wall clock: imports
 * stamp their consents with the real time, so the campaign's clock must not run before it.
 */
export function futureAllowedAt(): string {
  const week = 7 * 86_400_000;
  let t = Date.parse(ALLOWED_AT);
  while (t < Date.now() + 3_600_000) t += week;
  return new Date(t).toISOString();
}
