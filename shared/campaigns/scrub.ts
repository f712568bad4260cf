/**
 * The scrub (see docs/decisions/campaigns.md): every targeted contact judged once by the compliance engine
 * (judgeCall on the pinned version, the pool's numbers), in pages of the list's members
 * (gsi1 `TENANT#<t>#LIST#<lst>#MEMBERS`) resumed from `scrub_cursor`. It runs in the
 * scheduler tick, not in the start request: a 10,000-contact list takes ~7 reads per contact,
 * more than a request may spend. The campaign runs from the first judged page on (the driver), so
 * the scrub goes on beside the launches: a launch only ever takes a queue item this wrote.
 * Per contact, ONE transaction: the row (put if absent, so a repeated page counts nobody
 * twice), its queue item at its own next permitted instant
 * (allow: now; defer: next_permitted_at), and the campaign's counts (contacts_total, the
 * scrub counts by outcome, disposition and reason; a blocked contact is `done` at once).
 */

import { type CallJudgement, judgeCall, UnknownCallTarget } from '../calls/judge-call.js';
import { now } from '../clock.js';
import type { TransactItem } from '../db/conditional-transaction.js';
import { tryTransactWrite } from '../db/transact-write.js';
import { ID_PREFIX, newId } from '../ids.js';
import { blockSubCode } from '../policy/campaigns/rules.js';
import { BLOCK_CODES } from '../policy/compliance/types.js';
import { getAgentVersion } from '../repositories/agents.js';
import { scrubbedRowItems } from '../repositories/campaign-outcomes.js';
import { type CampaignRecord, saveScrubCursor, scrubCountItem } from '../repositories/campaigns.js';
import { listMembersPage } from '../repositories/contact-lists.js';
import type { AgentVersion } from '../schemas/agents.js';

const SCRUB_PAGE = 50;
const PARALLEL = 10;

/** The row and queue item of one judged contact, and the campaign's counts. */
function scrubItems(c: CampaignRecord, judged: CallJudgement, at: Date): TransactItem[] {
  const iso = at.toISOString();
  const { decision, contact } = judged;
  const blocked = decision.outcome === 'block';
  const notBefore = decision.outcome === 'defer' && decision.next_permitted_at ? new Date(decision.next_permitted_at).toISOString() : iso;
  const row = {
    contact_id: contact.id,
    contact_phone: contact.phone_e164,
    attempts: 0,
    latest_attempt_id: newId(ID_PREFIX.attempt),
    latest_attempt_state: blocked ? 'disposed' : 'scrubbed',
    disposition: blocked ? (decision.disposition ?? 'blocked_by_policy') : null,
    sub_code: blocked ? blockSubCode(decision.reasons, BLOCK_CODES) : null,
    call_id: null,
    outcome: null,
    has_outcome: false,
    last_activity_at: iso,
    row_status: blocked ? 'done' : 'pending',
    next_attempt_at: blocked ? null : notBefore,
    decision,
  };
  const reason = decision.reasons[0]?.code ?? 'none';
  const outcome = blocked ? 'blocked' : decision.outcome === 'defer' ? 'deferred' : 'allowed';
  const [rowPut, ...queuePut] = scrubbedRowItems(c.tenant_id, c.id, row, blocked ? null : notBefore);
  return [rowPut!, scrubCountItem(c, { outcome, reason, disposition: row.disposition }), ...queuePut];
}

async function scrubOne(c: CampaignRecord, version: AgentVersion, contactId: string): Promise<void> {
  const at = now();
  const judged = await judgeCall(c.tenant_id, { version, contact_id: contactId }, at, { numberIds: c.pool_number_ids }).catch((err: unknown) => {
    if (err instanceof UnknownCallTarget) return undefined; // deleted since it joined the list: not targeted
    throw err;
  });
  if (!judged) return;
  // Refused: already scrubbed (a page repeated after a lost cursor write), or the campaign left scrubbing.
  await tryTransactWrite(scrubItems(c, judged, at));
}

/**
 * One page of members; returns true when there is nothing more to scrub: the list is exhausted
 * (the cursor is then cleared and scrub_complete set), or the scrub was closed meanwhile (a cancel).
 */
export async function scrubPage(c: CampaignRecord): Promise<boolean> {
  const version = await getAgentVersion(c.tenant_id, c.agent_version_id!);
  if (!version) throw new Error(`campaign ${c.id}: pinned version ${c.agent_version_id} is gone`);
  const page = await listMembersPage(c.tenant_id, c.target.contact_list_id, c.scrub_cursor ?? null, SCRUB_PAGE);
  const ids = page.ids;
  for (let i = 0; i < ids.length; i += PARALLEL) await Promise.all(ids.slice(i, i + PARALLEL).map((id) => scrubOne(c, version, id)));
  const done = page.next === null;
  if (!(await saveScrubCursor(c, page.next, done))) return true;
  c.scrub_cursor = page.next;
  c.scrub_complete = done;
  return done;
}
