/**
 * The scrub (see docs/decisions/campaigns.md): every targeted contact judged once by the compliance engine
 * (judgeCall on the pinned version, the pool's numbers), in pages of the list's members
 * (gsi1 `TENANT#<t>#LIST#<lst>#MEMBERS`) resumed from `scrub_cursor`. It runs in the
 * scheduler tick, not in the start request: a 10,000-contact list takes ~7 reads per contact,
 * more than a request may spend. Per contact, ONE transaction: the row (put if absent, so a
 * repeated page counts nobody twice), its queue item at its own next permitted instant
 * (allow: now; defer: next_permitted_at), and the campaign's counts (contacts_total, the
 * scrub counts by outcome, disposition and reason; a blocked contact is `done` at once).
 */
import { QueryCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { now } from '../clock.js';
import { db, tableName } from '../db/client.js';
import { campaignKeys, contactKeys } from '../db/keys.js';
import { ID_PREFIX, newId } from '../ids.js';
import { BLOCK_CODES } from '../policy/compliance/types.js';
import { getAgentVersion } from '../repositories/agents.js';
import type { CampaignRecord } from '../repositories/campaigns.js';
import type { AgentVersion } from '../schemas/agents.js';
import { judgeCall, UnknownCallTarget, type CallJudgement } from '../calls/judge-call.js';
import { blockSubCode } from './rules.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const SCRUB_PAGE = 50;
const PARALLEL = 10;

/** The row and queue item of one judged contact, and the campaign's counts. */
function scrubItems(c: CampaignRecord, judged: CallJudgement, at: Date): TransactItem[] {
  const iso = at.toISOString();
  const { decision, contact } = judged;
  const blocked = decision.outcome === 'block';
  const notBefore = decision.outcome === 'defer' && decision.next_permitted_at ? new Date(decision.next_permitted_at).toISOString() : iso;
  const row = {
    ...campaignKeys.row(c.tenant_id, c.id, contact.id),
    type: 'campaign_contact',
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
  const outcomeKey = blocked ? 'blocked' : decision.outcome === 'defer' ? 'deferred' : 'allowed';
  const items: TransactItem[] = [
    { Put: { TableName: tableName(), Item: row, ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.campaign(c.tenant_id, c.id),
        UpdateExpression: 'ADD contacts_total :one, done :done SET scrub.#o = scrub.#o + :one, scrub.by_reason.#r = if_not_exists(scrub.by_reason.#r, :zero) + :one' + (blocked ? ', scrub.by_disposition.#d = if_not_exists(scrub.by_disposition.#d, :zero) + :one' : ''),
        ConditionExpression: '#status = :scrubbing',
        ExpressionAttributeNames: { '#o': outcomeKey, '#r': reason, '#status': 'status', ...(blocked ? { '#d': row.disposition as string } : {}) },
        ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':done': blocked ? 1 : 0, ':scrubbing': 'scrubbing' },
      },
    },
  ];
  if (!blocked) items.push({ Put: { TableName: tableName(), Item: { ...campaignKeys.queue(c.tenant_id, c.id, notBefore, contact.id), type: 'campaign_queue', contact_id: contact.id } } });
  return items;
}

async function scrubOne(c: CampaignRecord, version: AgentVersion, contactId: string): Promise<void> {
  const at = now();
  const judged = await judgeCall(c.tenant_id, { version, contact_id: contactId }, at, { numberIds: c.pool_number_ids }).catch((err: unknown) => {
    if (err instanceof UnknownCallTarget) return undefined; // deleted since it joined the list: not targeted
    throw err;
  });
  if (!judged) return;
  try {
    await db().send(new TransactWriteCommand({ TransactItems: scrubItems(c, judged, at) }));
  } catch (err) {
    // Already scrubbed (a page repeated after a lost cursor write), or the campaign left scrubbing.
    if (!(err instanceof TransactionCanceledException)) throw err;
  }
}

/** One page of members; returns true when the list is exhausted (the cursor is then cleared and scrub_complete set). */
export async function scrubPage(c: CampaignRecord): Promise<boolean> {
  const version = await getAgentVersion(c.tenant_id, c.agent_version_id!);
  if (!version) throw new Error(`campaign ${c.id}: pinned version ${c.agent_version_id} is gone`);
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': contactKeys.listMembersIndexPartition(c.tenant_id, c.target.contact_list_id) },
      ExclusiveStartKey: c.scrub_cursor ?? undefined,
      Limit: SCRUB_PAGE,
    }),
  );
  const ids = (page.Items ?? []).map((i) => i.contact_id as string);
  for (let i = 0; i < ids.length; i += PARALLEL) await Promise.all(ids.slice(i, i + PARALLEL).map((id) => scrubOne(c, version, id)));
  const done = !page.LastEvaluatedKey;
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: campaignKeys.campaign(c.tenant_id, c.id),
      UpdateExpression: 'SET scrub_cursor = :cursor, scrub_complete = :done',
      ConditionExpression: '#status = :scrubbing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':cursor': page.LastEvaluatedKey ?? null, ':done': done, ':scrubbing': 'scrubbing' },
    }),
  );
  c.scrub_cursor = (page.LastEvaluatedKey as Record<string, unknown>) ?? null;
  c.scrub_complete = done;
  return done;
}
